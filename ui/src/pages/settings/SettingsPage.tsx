import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ActionGroup, Alert, Button, Form, Grid, GridItem, Nav, NavItem, NavList, PageSection, Sidebar, SidebarContent, SidebarPanel, Title } from '@patternfly/react-core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { parse as parseYaml } from 'yaml';
import { http } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { ApiAnswer, FieldMeta, OptionsDoc } from '../../api/types';
import { FieldInput, INVALID } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';

type Category = ApiAnswer<'/api/v2/settings/'>['results'][number];

/** /settings[/<category>]: the categories of /api/v2/settings/, each a form from its OPTIONS (PUT). */
export default function SettingsPage() {
  const { category } = useParams();
  const categories = useQuery({ queryKey: ['/api/v2/settings/'], queryFn: () => http.get<ApiAnswer<'/api/v2/settings/'>>('/api/v2/settings/') });
  const list = (categories.data?.results ?? []).filter((c) => c.slug !== 'all' && c.slug !== 'changed');
  const current = list.find((c) => c.slug === category);
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">Settings{current ? `: ${current.name}` : ''}</Title>
      </PageSection>
      <PageSection>
        <ErrorAlert error={categories.error} />
        <Sidebar hasGutter>
          <SidebarPanel>
            <Nav aria-label="Setting categories">
              <NavList>
                {list.map((c) => (
                  <NavItem key={c.slug} isActive={c.slug === category}>
                    <Link to={`/settings/${c.slug}`}>{c.name}</Link>
                  </NavItem>
                ))}
              </NavList>
            </Nav>
          </SidebarPanel>
          <SidebarContent>
            {current ? <CategoryForm key={current.slug} category={current} /> : categories.isPending ? <Loading /> : <p>Pick a category to see and change its settings.</p>}
          </SidebarContent>
        </Sidebar>
      </PageSection>
    </>
  );
}

function CategoryForm({ category }: { category: Category }) {
  const values = useQuery({ queryKey: [category.url], queryFn: () => http.get<ApiAnswer<'/api/v2/settings/{slug}/'>>(category.url) });
  const options = useQuery({ queryKey: ['options', category.url], queryFn: () => http.options<OptionsDoc>(category.url) });
  if (values.isPending || options.isPending) return <Loading />;
  if (values.error || options.error) return <ErrorAlert error={values.error ?? options.error} />;
  const writable = options.data.actions?.PUT;
  const fields = shownSettings(writable ?? options.data.actions?.GET ?? {});
  return <SettingsForm url={category.url} fields={fields} initial={values.data} readOnly={!writable} />;
}

/**
 * The settings a form shows: not those the API marks hidden (AWX's `hidden`: what does nothing on
 * this product), and each setting once: under AWX's name where it has one (`alias_of` names
 * Drover's, which the alias's help text mentions).
 */
export function shownSettings(fields: Record<string, FieldMeta>): Record<string, FieldMeta> {
  const aliased = new Set(Object.values(fields).map((meta) => meta.alias_of).filter((name): name is string => typeof name === 'string'));
  return Object.fromEntries(Object.entries(fields).filter(([name, meta]) => meta.hidden !== true && !aliased.has(name)));
}

function SettingsForm({ url, fields, initial, readOnly }: { url: string; fields: Record<string, FieldMeta>; initial: Record<string, unknown>; readOnly: boolean }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const changed = Object.keys(values).filter((k) => JSON.stringify(values[k]) !== JSON.stringify(initial[k]));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    setFailure(null);
    if (changed.some((k) => values[k] === INVALID)) return setErrors(Object.fromEntries(changed.filter((k) => values[k] === INVALID).map((k) => [k, 'Fix the syntax before saving.'])));
    try {
      const body = Object.fromEntries(changed.map((k) => [k, fields[k]?.type === 'json' && typeof values[k] === 'string' ? parseYaml(values[k] as string) : values[k]]));
      await http.patch(url, body);
      setErrors({});
      setSaved(true);
      await queryClient.invalidateQueries({ queryKey: [url] });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) setErrors(err.fieldErrors);
      setFailure(err);
    }
  };

  return (
    <Form onSubmit={submit} aria-label="Settings">
      {readOnly && <Alert variant="info" isInline title="Only a system administrator may change these settings." />}
      {saved && <Alert variant="success" isInline title="Saved." />}
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter>
        {Object.entries(fields).map(([name, meta]) => (
          <GridItem key={name} md={meta.type === 'json' ? 12 : 6}>
            <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
              <FieldInput name={name} meta={meta} value={values[name]} onChange={(v) => setValues((old) => ({ ...old, [name]: v }))} error={errors[name]} />
            </fieldset>
          </GridItem>
        ))}
      </Grid>
      {!readOnly && (
        <ActionGroup>
          <Button type="submit" variant="primary" isDisabled={!changed.length}>Save</Button>
          <Button variant="link" onClick={() => setValues(initial)} isDisabled={!changed.length}>Revert</Button>
        </ActionGroup>
      )}
    </Form>
  );
}
