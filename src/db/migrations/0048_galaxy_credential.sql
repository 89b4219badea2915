-- The managed "Ansible Galaxy" credential, as AWX creates it (create_preload_data, and its migration
-- _galaxy.migrate_galaxy_settings for installations upgraded): global, managed, with the public Galaxy's
-- URL, and the first Galaxy credential of the Default organization when it is made. A function, so
-- that the first start (src/server/bootstrap.ts), which makes the credential types after the
-- migrations, makes it alike; here it makes it for databases whose types exist already.
CREATE FUNCTION ensure_galaxy_credential() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  galaxy_type integer;
  credential integer;
  admin_role integer;
  use_role integer;
  read_role integer;
BEGIN
  SELECT id INTO galaxy_type FROM credential_types WHERE namespace = 'galaxy_api_token';
  IF galaxy_type IS NULL OR EXISTS (SELECT 1 FROM credentials WHERE managed AND name = 'Ansible Galaxy') THEN
    RETURN;
  END IF;
  INSERT INTO credentials (name, credential_type_id, inputs, managed)
    VALUES ('Ansible Galaxy', galaxy_type, '{"url": "https://galaxy.ansible.com/"}', true) RETURNING id INTO credential;
  -- Its roles as every credential's (credential.resource.ts); without an organization, none above them.
  INSERT INTO roles (role_field, content_type, object_id) VALUES ('admin_role', 'credential', credential) RETURNING id INTO admin_role;
  INSERT INTO roles (role_field, content_type, object_id) VALUES ('use_role', 'credential', credential) RETURNING id INTO use_role;
  INSERT INTO roles (role_field, content_type, object_id) VALUES ('read_role', 'credential', credential) RETURNING id INTO read_role;
  INSERT INTO role_parents (role_id, parent_id) VALUES (use_role, admin_role), (read_role, use_role);
  INSERT INTO role_ancestors (descendent_id, ancestor_id) VALUES
    (admin_role, admin_role), (use_role, use_role), (use_role, admin_role),
    (read_role, read_role), (read_role, use_role), (read_role, admin_role);
  INSERT INTO organization_galaxy_credentials (organization_id, credential_id, position)
    SELECT o.id, credential, 0 FROM organizations o
    WHERE o.name = 'Default' AND NOT EXISTS (SELECT 1 FROM organization_galaxy_credentials g WHERE g.organization_id = o.id);
END
$$;

SELECT ensure_galaxy_credential();
