import { useState, type FormEvent } from 'react';
import { ActionGroup, Alert, Button, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, Label, List, ListItem, TextArea, Title } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { JsonTree } from '../event-rules/JsonTree';
import { parseJsonObject } from '../event-rules/event-rules-api';

interface TestAnswer {
  allowed: boolean;
  warnings: string[];
  denies: string[];
  raw: unknown;
}

const SAMPLE_INPUT = JSON.stringify({
  resource_type: 'job_template', resource_name: 'Deploy', organization_name: 'Default',
  user: { id: 2, username: 'alice', is_superuser: false }, extra_vars: { environment: 'production' },
  inventory: { id: 1, name: 'Production', kind: '' }, credentials: [], playbook: 'site.yml',
}, null, 2);

/** The policy's test/: a context document typed as JSON and what the engine's verdict makes of it. Nothing is launched or recorded. */
export default function PolicyTester({ object }: { object: ResourceObject<'policies'> }) {
  const [input, setInput] = useState(SAMPLE_INPUT);
  const [problem, setProblem] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [answer, setAnswer] = useState<TestAnswer | null>(null);
  const [busy, setBusy] = useState(false);

  if (!object.summary_fields?.user_capabilities?.edit) {
    return <Alert variant="info" isInline title="Only those who manage this policy may test it." />;
  }

  const run = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseJsonObject(input, 'The input');
    setProblem(parsed.problem ?? null);
    setFailure(null);
    if (parsed.problem) return;
    setBusy(true);
    try {
      setAnswer(await http.post<TestAnswer>(String(object.related?.test ?? `${object.url}test/`), { input: parsed.value }));
    } catch (err) {
      setAnswer(null);
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Form onSubmit={run} aria-label="Test policy">
        <FormGroup label="Input (the context document)" fieldId="policy-test-input">
          <TextArea id="policy-test-input" value={input} onChange={(_e, v) => setInput(v)} rows={14} className="drover-mono" validated={problem ? 'error' : 'default'} />
          {problem && (
            <FormHelperText><HelperText><HelperTextItem variant="error">{problem}</HelperTextItem></HelperText></FormHelperText>
          )}
        </FormGroup>
        <ErrorAlert error={failure} title="Not evaluated" />
        <ActionGroup>
          <Button type="submit" variant="primary" isLoading={busy} isDisabled={busy}>Evaluate</Button>
        </ActionGroup>
      </Form>
      {answer && (
        <section aria-label="Verdict" style={{ marginTop: '1.5rem' }}>
          <Title headingLevel="h2" size="lg">
            Verdict <Label color={answer.allowed ? (answer.warnings.length ? 'orange' : 'green') : 'red'}>{answer.allowed ? (answer.warnings.length ? 'Allowed with warnings' : 'Allowed') : 'Denied'}</Label>
          </Title>
          <Messages title="Denies" messages={answer.denies} />
          <Messages title="Warnings" messages={answer.warnings} />
          <Title headingLevel="h3" size="md" style={{ marginTop: '1rem' }}>Engine result</Title>
          <JsonTree value={answer.raw} label="Engine result" />
        </section>
      )}
    </>
  );
}

function Messages({ title, messages }: { title: string; messages: string[] }) {
  return (
    <div aria-label={title} style={{ marginTop: '0.75rem' }}>
      <Title headingLevel="h3" size="md">{title}</Title>
      {messages.length ? <List>{messages.map((m, i) => <ListItem key={i}>{m}</ListItem>)}</List> : <p className="drover-subtle">None</p>}
    </div>
  );
}
