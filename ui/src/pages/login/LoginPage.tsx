import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Alert, AlertActionLink, Button, Form, FormGroup, LoginPage as PfLoginPage, TextInput, Divider, Stack } from '@patternfly/react-core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, http, must } from '../../api/client';
import { ApiError } from '../../api/errors';
import { safeNext } from '../../app/login-path';

interface AuthMethod {
  login_url: string;
  name?: string;
}

/** Sign-in methods the settings enable (GET /api/v2/auth/), shown as buttons; none when the API has none. */
function useAuthMethods() {
  return useQuery({
    queryKey: ['/api/v2/auth/'],
    queryFn: async () => {
      try {
        return await http.get<Record<string, AuthMethod>>('/api/v2/auth/');
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return {};
        throw err;
      }
    },
    retry: false,
  });
}

/**
 * A login over plain HTTP from another machine is refused with the HTTPS address to use
 * (SESSION_COOKIE_SECURE, docs/authentication.md): a link to this login page there.
 */
function secureLink(message: string, next: string) {
  const address = /use HTTPS \((https:\/\/[^\s)]+\/)\)/.exec(message)?.[1];
  if (!address) return undefined;
  const target = `${address}login?next=${encodeURIComponent(next)}`;
  return <AlertActionLink component="a" href={target}>Log in at {address}</AlertActionLink>;
}

export default function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const root = useQuery({ queryKey: ['/api/'], queryFn: () => http.get<{ custom_login_info?: string }>('/api/'), retry: false });
  const methods = useAuthMethods();
  const next = safeNext(params.get('next'));
  // Set by a failed SSO sign-in (SAML, OIDC, social login), which comes back here.
  const ssoError = params.get('sso_error');

  // The API root sets the csrftoken cookie the login needs.
  useEffect(() => void root.refetch(), []); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await http.get('/api/');
      await must(api.POST('/api/login/', { body: { username, password } }));
      queryClient.clear();
      navigate(next, { replace: true });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The service cannot be reached.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <PfLoginPage loginTitle="Log in to Drover" loginSubtitle={root.data?.custom_login_info || undefined}>
      <Stack hasGutter>
        {params.get('next') && !error && !ssoError && <Alert variant="info" isInline isPlain title="Log in to continue where you were." />}
        {error && <Alert variant="danger" isInline title={error} role="alert" actionLinks={secureLink(error, next)} />}
        {ssoError && !error && <Alert variant="danger" isInline title={ssoError} role="alert" />}
        <Form onSubmit={submit} aria-label="Log in">
          <FormGroup label="Username" isRequired fieldId="login-username">
            <TextInput id="login-username" name="username" autoComplete="username" value={username} onChange={(_e, v) => setUsername(v)} isRequired autoFocus />
          </FormGroup>
          <FormGroup label="Password" isRequired fieldId="login-password">
            <TextInput id="login-password" name="password" type="password" autoComplete="current-password" value={password} onChange={(_e, v) => setPassword(v)} isRequired />
          </FormGroup>
          <ActionGroup>
            <Button type="submit" variant="primary" isBlock isLoading={busy} isDisabled={busy || !username || !password}>Log in</Button>
          </ActionGroup>
        </Form>
        {Object.keys(methods.data ?? {}).length > 0 && (
          <>
            <Divider />
            {Object.entries(methods.data ?? {}).map(([key, method]) => (
              <Button key={key} variant="secondary" isBlock component="a" href={`${method.login_url}${method.login_url.includes('?') ? '&' : '?'}next=${encodeURIComponent(next)}`}>
                Sign in with {method.name ?? key}
              </Button>
            ))}
          </>
        )}
      </Stack>
    </PfLoginPage>
  );
}
