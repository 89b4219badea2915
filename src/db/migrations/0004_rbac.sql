-- The role graph. A role's parents are roles whose holders also hold it (organization admin_role is a
-- parent of every team's admin_role; a team's member_role is a parent of each role granted to the team).
CREATE TABLE role_parents (
  role_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  parent_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  PRIMARY KEY (role_id, parent_id),
  CHECK (role_id <> parent_id)
);
CREATE INDEX role_parents_parent_idx ON role_parents (parent_id);

-- Transitive closure of role_parents, each role included as its own ancestor: holding `ancestor_id`
-- means holding `descendent_id`. Kept in step with role_parents by src/rbac/graph.ts.
CREATE TABLE role_ancestors (
  descendent_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  ancestor_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  PRIMARY KEY (descendent_id, ancestor_id)
);
CREATE INDEX role_ancestors_ancestor_idx ON role_ancestors (ancestor_id, descendent_id);
CREATE INDEX roles_type_field_idx ON roles (content_type, role_field, object_id);

INSERT INTO role_ancestors (descendent_id, ancestor_id) SELECT id, id FROM roles;
