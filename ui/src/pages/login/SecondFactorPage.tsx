import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Alert, Button, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, LoginPage as PfLoginPage, Stack, TextInput } from '@patternfly/react-core';
import { KeyIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import { ApiError } from '../../api/errors';
import { authenticateWithPasskey, PasskeyError, passkeysAvailable, registerPasskey } from '../../api/passkeys';
import { Loading } from '../../components/Loading';
import { safeNext } from '../../app/login-path';
import { useMe } from '../../hooks/api-hooks';

const messageOf = (err: unknown) => (err instanceof ApiError || err instanceof PasskeyError ? err.message : 'The service cannot be reached.');

/**
 * The second factor step (docs/webauthn.md#the-second-factor): a session opened with a password by
 * a user whose organization asks for a passkey reaches nothing else until it passes one. A user
 * with no passkey yet registers one first (the API allows it once, while he has none), then uses it.
 */
export default function SecondFactorPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useMe();
  const [label, setLabel] = useState('');
  const [registered, setRegistered] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'register' | 'verify' | 'logout' | null>(null);

  const leave = (to: string) => {
    queryClient.clear();
    navigate(to, { replace: true });
  };

  const run = async (what: 'register' | 'verify', step: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await step();
    } catch (err) {
      // The session ended meanwhile (expired, logged out elsewhere): sign in again.
      if (err instanceof ApiError && err.status === 401 && !/second factor/i.test(err.message)) leave(`/login?next=${encodeURIComponent(next)}`);
      else setError(messageOf(err));
    } finally {
      setBusy(null);
    }
  };

  const enroll = (e: FormEvent) => {
    e.preventDefault();
    void run('register', async () => {
      const passkey = await registerPasskey(label);
      setRegistered(passkey.label);
      await me.refetch();
    });
  };

  const verify = () => void run('verify', async () => {
    await authenticateWithPasskey();
    leave(next);
  });

  const logout = async () => {
    setBusy('logout');
    await http.post('/api/logout/').catch(() => undefined);
    leave('/login');
  };

  if (me.error) {
    if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
  } else if (!me.data) {
    return <Loading />;
  } else if (!me.data.second_factor_pending) {
    return <Navigate to={next} replace />;
  }

  const enrolling = me.data !== undefined && me.data.webauthn_credentials === 0;
  const supported = passkeysAvailable();
  return (
    <PfLoginPage loginTitle="Verify it is you" loginSubtitle={me.data ? `Signed in as ${me.data.username} with a password.` : undefined}>
      <Stack hasGutter>
        {me.error && <Alert variant="danger" isInline title={messageOf(me.error)} role="alert" />}
        {!supported && (
          <Alert variant="danger" isInline title="This browser cannot use passkeys here">
            Passkeys need a browser with WebAuthn, on an HTTPS address (or http://localhost).
          </Alert>
        )}
        {registered && !enrolling && <Alert variant="success" isInline title={`Passkey "${registered}" registered: use it now to continue.`} />}
        {error && <Alert variant="danger" isInline title={error} role="alert" />}
        {me.data && enrolling ? (
          <Form onSubmit={enroll} aria-label="Register a passkey">
            <p>
              An organization you belong to asks for a passkey after your password, and you have none yet. Register one on this device
              (or a security key), then use it to continue.
            </p>
            <FormGroup label="Passkey name" fieldId="second-factor-label">
              <TextInput id="second-factor-label" value={label} onChange={(_e, v) => setLabel(v)} placeholder="Passkey 1" />
              <FormHelperText>
                <HelperText>
                  <HelperTextItem>Something to tell it by later: "Work laptop", "Phone".</HelperTextItem>
                </HelperText>
              </FormHelperText>
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant="primary" isBlock icon={<KeyIcon />} isLoading={busy === 'register'} isDisabled={!!busy || !supported}>
                Register a passkey
              </Button>
            </ActionGroup>
          </Form>
        ) : me.data ? (
          <>
            <p>An organization you belong to asks for a passkey after your password. Use one of your passkeys to continue.</p>
            <Button variant="primary" isBlock icon={<KeyIcon />} onClick={verify} isLoading={busy === 'verify'} isDisabled={!!busy || !supported}>
              Use a passkey
            </Button>
            <HelperText>
              <HelperTextItem>Lost your passkeys? A system administrator can delete them; you then register a new one here.</HelperTextItem>
            </HelperText>
          </>
        ) : null}
        <Button variant="link" isInline onClick={() => void logout()} isDisabled={busy === 'logout'}>
          Log out
        </Button>
      </Stack>
    </PfLoginPage>
  );
}
