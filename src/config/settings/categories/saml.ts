import { FieldProblem, secret, text } from '../../../api/fields.ts';
import type { FieldErrors } from '../../../api/errors.ts';
import { certificatePem, keyMatchesCertificate, privateKeyOf } from '../pem.ts';
import {
  contact,
  enabledIdps,
  extraData,
  orgInfo,
  organizationAttr,
  securityConfig,
  spExtra,
  teamAttr,
  userFlagsByAttr,
  type SamlIdp,
  type SamlOrganizationAttr,
  type SamlSecurityConfig,
  type SamlTeamAttr,
  type SamlUserFlags,
} from '../saml-shapes.ts';
import { organizationMapField, teamMapField, type OrganizationMap, type TeamMap } from '../sso-maps.ts';
import { category, computedSetting, setting } from '../types.ts';

export const SAML_ACS_PATH = '/sso/complete/saml/';

const certificate = text({
  label: 'SAML Service Provider Public Certificate',
  helpText:
    'Create a keypair to use as a service provider (SP) and include the certificate content here (PEM). Identity providers check the signatures of signed requests and metadata with it.',
});

const privateKey = secret({
  label: 'SAML Service Provider Private Key',
  helpText: 'The private key (PEM, unencrypted) of the certificate above: signs requests and metadata when SECURITY_CONFIG asks for it, and decrypts encrypted assertions.',
});

export const saml = category({
  slug: 'saml',
  name: 'SAML',
  description: 'Sign-in with SAML 2.0 identity providers: the service provider, the identity providers and how their attributes map to users, organizations and teams.',
  settings: {
    SOCIAL_AUTH_SAML_CALLBACK_URL: computedSetting<string>(
      text({
        label: 'SAML Assertion Consumer Service (ACS) URL',
        helpText:
          'Register the service as a service provider (SP) with each identity provider (IdP) you have configured, using this ACS URL. It is made from SVC_URL_BASE (TOWER_URL_BASE).',
      }),
      (_facts, value) => `${String(value('SVC_URL_BASE') ?? '')}${SAML_ACS_PATH}`,
    ),
    SOCIAL_AUTH_SAML_SP_ENTITY_ID: setting<string>(
      text({
        maxLength: 1024,
        label: 'SAML Service Provider Entity ID',
        helpText:
          'The application-defined unique identifier used as the audience of the SAML service provider (SP) configuration. This is usually the URL of the service.',
      }),
    ),
    SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: setting<string>({
      ...certificate,
      parse: (value) => {
        const pem = certificate.parse(value) as string;
        return pem.trim() === '' ? '' : certificatePem(pem);
      },
    }),
    SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: setting<string>({
      ...privateKey,
      parse: (value) => {
        const pem = (privateKey.parse(value) as string).trim();
        if (pem !== '') privateKeyOf(pem);
        return pem === '' ? '' : `${pem}\n`;
      },
    }),
    SOCIAL_AUTH_SAML_ORG_INFO: setting<Record<string, { name: string; displayname: string; url: string }>>(
      orgInfo({
        label: 'SAML Service Provider Organization Info',
        helpText: 'The organization of the service provider, by language: {"en-US": {"name": ..., "displayname": ..., "url": ...}}. Shown in the SP metadata.',
      }),
    ),
    SOCIAL_AUTH_SAML_TECHNICAL_CONTACT: setting<{ givenName?: string; emailAddress?: string }>(
      contact({
        label: 'SAML Service Provider Technical Contact',
        helpText: 'Name and email address of the technical contact of the service provider: {"givenName": ..., "emailAddress": ...}. Shown in the SP metadata.',
      }),
    ),
    SOCIAL_AUTH_SAML_SUPPORT_CONTACT: setting<{ givenName?: string; emailAddress?: string }>(
      contact({
        label: 'SAML Service Provider Support Contact',
        helpText: 'Name and email address of the support contact of the service provider: {"givenName": ..., "emailAddress": ...}. Shown in the SP metadata.',
      }),
    ),
    SOCIAL_AUTH_SAML_ENABLED_IDPS: setting<Record<string, SamlIdp>>(
      enabledIdps({
        label: 'SAML Enabled Identity Providers',
        helpText:
          'The identity providers (IdP) users may sign in with, by name: {"name": {"entity_id", "url" (single sign-on URL), "x509cert", and optionally "attr_user_permanent_id", "attr_username", "attr_email", "attr_first_name", "attr_last_name"}}. Attribute names default to the standard OIDs; "name_id" stands for the NameID of the assertion.',
      }),
    ),
    SOCIAL_AUTH_SAML_SECURITY_CONFIG: setting<SamlSecurityConfig>(
      securityConfig({
        default: { requestedAuthnContext: false },
        label: 'SAML Security Config',
        helpText:
          'Keys: authnRequestsSigned, signMetadata, wantMessagesSigned, wantAssertionsSigned, requestedAuthnContext, signatureAlgorithm, digestAlgorithm. A signature on the response or on the assertion is always required.',
      }),
    ),
    SOCIAL_AUTH_SAML_SP_EXTRA: setting<Record<string, unknown> | null>(
      spExtra({
        label: 'SAML Service Provider extra configuration data',
        helpText: 'A dictionary of further service provider settings, kept for AWX compatibility; the service does not apply them.',
      }),
    ),
    SOCIAL_AUTH_SAML_EXTRA_DATA: setting<(string | string[])[] | null>(
      extraData({
        label: 'SAML IDP to extra_data attribute mapping',
        helpText: 'A list of [attribute, name] pairs of identity provider attributes to keep, kept for AWX compatibility; the service does not store them.',
      }),
    ),
    SOCIAL_AUTH_SAML_ORGANIZATION_MAP: setting<OrganizationMap>(
      organizationMapField({
        regexAllowed: true,
        label: 'SAML Organization Map',
        helpText:
          'Organizations of SAML users by username or email: {"organization": {"users", "admins", "auditors": true, false, a name, a "/regex/" or a list of them, "remove_users", "remove_admins", "remove_auditors"}}. Organizations named here are created when missing.',
      }),
    ),
    SOCIAL_AUTH_SAML_TEAM_MAP: setting<TeamMap>(
      teamMapField({
        regexAllowed: true,
        label: 'SAML Team Map',
        helpText: 'Teams of SAML users by username or email: {"team": {"organization", "users", "remove"}}. Teams named here are created when missing.',
      }),
    ),
    SOCIAL_AUTH_SAML_ORGANIZATION_ATTR: setting<SamlOrganizationAttr>(
      organizationAttr({
        label: 'SAML Organization Attribute Mapping',
        helpText:
          'Organizations from attributes: {"saml_attr": attribute naming the organizations the user is a member of, "saml_admin_attr": ... an admin of, "saml_auditor_attr": ... an auditor of, "remove", "remove_admins", "remove_auditors": take away the role in organizations the attribute no longer names (default true)}.',
      }),
    ),
    SOCIAL_AUTH_SAML_TEAM_ATTR: setting<SamlTeamAttr>(
      teamAttr({
        label: 'SAML Team Attribute Mapping',
        helpText:
          'Teams from an attribute: {"saml_attr": attribute naming the teams, "remove": take away memberships the attribute no longer names (default true), "team_org_map": [{"team", "team_alias" (optional), "organization"}]}.',
      }),
    ),
    SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: setting<SamlUserFlags>(
      userFlagsByAttr({
        label: 'SAML User Flags Attribute Mapping',
        helpText:
          'Superuser and system auditor flags from attributes: is_superuser_role / is_system_auditor_role (values of the "Role" attribute), is_superuser_attr / is_system_auditor_attr with optional is_superuser_value / is_system_auditor_value, and remove_superusers / remove_system_auditors (default true). Flags not configured here are never changed by a SAML login.',
      }),
    ),
  },
  validate(value) {
    const errors: FieldErrors = {};
    const cert = value('SOCIAL_AUTH_SAML_SP_PUBLIC_CERT') as string;
    const key = value('SOCIAL_AUTH_SAML_SP_PRIVATE_KEY') as string;
    const security = (value('SOCIAL_AUTH_SAML_SECURITY_CONFIG') ?? {}) as SamlSecurityConfig;
    if (cert && key) {
      try {
        if (!keyMatchesCertificate(key, cert)) errors.SOCIAL_AUTH_SAML_SP_PRIVATE_KEY = ['The private key does not belong to SOCIAL_AUTH_SAML_SP_PUBLIC_CERT.'];
      } catch (err) {
        if (!(err instanceof FieldProblem)) throw err;
        errors.SOCIAL_AUTH_SAML_SP_PRIVATE_KEY = [err.message];
      }
    }
    if ((security.authnRequestsSigned || security.signMetadata) && !(cert && key)) {
      errors.SOCIAL_AUTH_SAML_SECURITY_CONFIG = ['Signing requests or metadata needs SOCIAL_AUTH_SAML_SP_PUBLIC_CERT and SOCIAL_AUTH_SAML_SP_PRIVATE_KEY.'];
    }
    return Object.keys(errors).length ? errors : null;
  },
});
