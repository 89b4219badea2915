import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ActionGroup, Alert, Button, Checkbox, Form, FormGroup, FormSection, Grid, GridItem, TextArea, TextInput } from '@patternfly/react-core';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ResourceConfig } from '../../resources/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { fieldHelp } from '../../components/field-help';
import { BrandingFields, emptyBranding } from './BrandingFields';
import { BrandingPreview } from './BrandingPreview';
import { QuotaFields, quotaBody, quotaText, type QuotaText } from './QuotaFields';
import { GeneratedPasswordModal } from './GeneratedPasswordModal';
import { BRANDING_FIELDS, QUOTA_KINDS, tenantFieldErrors, type Branding, type Tenant } from './tenant-types';

/** Fields this form shows; a message for any other lands above the form. */
const SHOWN = new Set(['name', 'description', 'admin_username', 'admin_email', 'admin_password', ...QUOTA_KINDS.map((k) => `quota.${k}`), ...BRANDING_FIELDS.map((f) => `branding.${f}`)]);

interface Provisioned {
  id: number;
  name: string;
  admin_password?: string;
}

/**
 * Provisioning a tenant (its organization, admin user and default team, with quotas and branding),
 * or changing a tenant's description, quotas and branding. The API names every bad field at once.
 */
export default function TenantForm({ object }: { object?: Tenant; config: ResourceConfig }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState(object?.name ?? '');
  const [description, setDescription] = useState(object?.description ?? '');
  const [adminUsername, setAdminUsername] = useState('');
  const [adminEmail, setAdminEmail] = useState('');
  const [generate, setGenerate] = useState(true);
  const [adminPassword, setAdminPassword] = useState('');
  const [quota, setQuota] = useState<QuotaText>(() => quotaText(object?.quota));
  const [branding, setBranding] = useState<Branding>(() => ({ ...emptyBranding(), ...object?.branding }));
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [provisioned, setProvisioned] = useState<Provisioned | null>(null);

  const body = () => {
    if (object) return { description, quota: quotaBody(quota), branding };
    const filled = Object.fromEntries(Object.entries(quotaBody(quota)).filter(([, v]) => v !== null));
    return {
      name,
      description,
      admin_username: adminUsername,
      admin_email: adminEmail,
      ...(generate ? {} : { admin_password: adminPassword }),
      quota: filled,
      branding: Object.fromEntries(Object.entries(branding).filter(([, v]) => v.trim() !== '')),
    };
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setFailure(null);
    setErrors({});
    try {
      const saved = object ? await http.patch<Tenant>(object.url, body()) : await http.post<Provisioned>('/api/v2/tenants/', body());
      await queryClient.invalidateQueries();
      // The generated password is answered once: shown before leaving the form.
      if (!object && (saved as Provisioned).admin_password) setProvisioned(saved as Provisioned);
      else navigate(`/tenants/${saved.id}`);
    } catch (err) {
      const byField = tenantFieldErrors(err);
      setErrors(byField);
      if (!Object.keys(byField).length || Object.keys(byField).some((k) => !SHOWN.has(k))) setFailure(err);
    } finally {
      setSaving(false);
    }
  };

  const unplaced = Object.entries(errors).filter(([field]) => !SHOWN.has(field));
  const text = (id: string, label: string, value: string, set: (v: string) => void, options: { required?: boolean; readOnly?: boolean; type?: 'email' | 'password'; autoComplete?: string; help?: string; error?: string } = {}) => (
    <FormGroup label={label} fieldId={id} isRequired={options.required}>
      <TextInput id={id} type={options.type ?? 'text'} value={value} onChange={(_e, v) => set(v)} isRequired={options.required} readOnlyVariant={options.readOnly ? 'default' : undefined} autoComplete={options.autoComplete} validated={options.error ? 'error' : 'default'} aria-describedby={`${id}-help`} />
      {fieldHelp(id, options.error, options.help)}
    </FormGroup>
  );

  return (
    <>
      <Form onSubmit={(e) => void submit(e)} aria-label={object ? `Edit tenant ${object.name}` : 'Provision a tenant'} noValidate>
        {unplaced.length > 0 ? (
          <Alert variant="danger" isInline title="Not saved" role="alert">
            <ul>{unplaced.map(([field, message]) => <li key={field}>{field === '__all__' ? message : `${field}: ${message}`}</li>)}</ul>
          </Alert>
        ) : (
          <ErrorAlert error={failure} title="Not saved" />
        )}
        <FormSection title="Tenant" titleElement="h2">
          <Grid hasGutter>
            <GridItem span={12} md={6}>
              {object ? (
                text('tenant-name', 'Name', name, setName, { readOnly: true, help: "The tenant's organization: rename it on the organization's page." })
              ) : (
                text('tenant-name', 'Name', name, setName, { required: true, error: errors.name, help: 'Names the organization, and its default team "<name> Default Team".' })
              )}
            </GridItem>
            <GridItem span={12}>
              <FormGroup label="Description" fieldId="tenant-description">
                <TextArea id="tenant-description" value={description} onChange={(_e, v) => setDescription(v)} resizeOrientation="vertical" validated={errors.description ? 'error' : 'default'} aria-describedby="tenant-description-help" />
                {fieldHelp('tenant-description', errors.description)}
              </FormGroup>
            </GridItem>
          </Grid>
        </FormSection>
        {!object && (
          <FormSection title="Tenant administrator" titleElement="h2">
            <Grid hasGutter>
              <GridItem span={12} md={6}>{text('tenant-admin-username', 'Admin username', adminUsername, setAdminUsername, { required: true, autoComplete: 'off', error: errors.admin_username })}</GridItem>
              <GridItem span={12} md={6}>{text('tenant-admin-email', 'Admin email', adminEmail, setAdminEmail, { required: true, type: 'email', error: errors.admin_email })}</GridItem>
              <GridItem span={12} md={6}>
                <Checkbox id="tenant-admin-generate" label="Generate a password" description="Shown once, after the tenant is made." isChecked={generate} onChange={(_e, on) => setGenerate(on)} />
              </GridItem>
              {!generate && (
                <GridItem span={12} md={6}>{text('tenant-admin-password', 'Admin password', adminPassword, setAdminPassword, { required: true, type: 'password', autoComplete: 'new-password', error: errors.admin_password })}</GridItem>
              )}
            </Grid>
          </FormSection>
        )}
        <FormSection title="Quotas" titleElement="h2">
          <QuotaFields value={quota} onChange={setQuota} errors={errors} />
        </FormSection>
        <FormSection title="Branding" titleElement="h2">
          <BrandingFields value={branding} onChange={setBranding} errors={errors} />
          <BrandingPreview name={name} branding={branding} />
        </FormSection>
        <ActionGroup>
          <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>{object ? 'Save' : 'Provision'}</Button>
          <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
        </ActionGroup>
      </Form>
      {provisioned && <GeneratedPasswordModal tenant={provisioned} onClose={() => navigate(`/tenants/${provisioned.id}`)} />}
    </>
  );
}
