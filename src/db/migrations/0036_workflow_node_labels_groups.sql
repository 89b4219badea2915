-- A workflow node's saved labels and instance groups (AWX's LaunchTimeConfig labels and
-- instance_groups), on template nodes and on the workflow job nodes copied from them.
CREATE TABLE workflow_job_template_node_labels (
  node_id integer NOT NULL REFERENCES workflow_job_template_nodes(id) ON DELETE CASCADE,
  label_id integer NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (node_id, label_id)
);
CREATE TABLE workflow_job_template_node_instance_groups (
  node_id integer NOT NULL REFERENCES workflow_job_template_nodes(id) ON DELETE CASCADE,
  instance_group_id integer NOT NULL REFERENCES instance_groups(id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (node_id, instance_group_id)
);
CREATE TABLE workflow_job_node_labels (
  node_id integer NOT NULL REFERENCES workflow_job_nodes(id) ON DELETE CASCADE,
  label_id integer NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (node_id, label_id)
);
CREATE TABLE workflow_job_node_instance_groups (
  node_id integer NOT NULL REFERENCES workflow_job_nodes(id) ON DELETE CASCADE,
  instance_group_id integer NOT NULL REFERENCES instance_groups(id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (node_id, instance_group_id)
);
