-- SAML sign-in: the authentication requests the service issued (an answer must name one of them,
-- for the browser that started it), and the assertions already used (an assertion is accepted
-- once). Kept in the database so every node of a cluster sees them.

CREATE TABLE IF NOT EXISTS saml_requests (
  -- The ID of the AuthnRequest, which the IdP answers in InResponseTo.
  id text PRIMARY KEY,
  idp text NOT NULL,
  -- SHA-256 of the state the browser holds in its cookie and in RelayState.
  state_hash text NOT NULL,
  created timestamptz NOT NULL DEFAULT now(),
  expires timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS saml_requests_expires ON saml_requests (expires);

CREATE TABLE IF NOT EXISTS saml_used_assertions (
  idp text NOT NULL,
  assertion_id text NOT NULL,
  -- Past this time the assertion is refused as expired anyway, so the row may go.
  expires timestamptz NOT NULL,
  PRIMARY KEY (idp, assertion_id)
);
CREATE INDEX IF NOT EXISTS saml_used_assertions_expires ON saml_used_assertions (expires);
