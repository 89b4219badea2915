import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Alert, AlertActionLink, Button, Form, FormGroup, LoginPage as PfLoginPage, TextInput, Divider, Stack } from '@patternfly/react-core';
import { KeyIcon } from '@patternfly/react-icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, http, must } from '../../api/client';
import { ApiError } from '../../api/errors';
import { authenticateWithPasskey, PasskeyError, passkeysAvailable } from '../../api/passkeys';
import { safeNext, secondFactorPath } from '../../app/login-path';
import { pageBranding } from '../../app/branding';

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
  const [busy, setBusy] = useState<'password' | 'passkey' | null>(null);
  const root = useQuery({ queryKey: ['/api/'], queryFn: () => http.get<{ custom_login_info?: string }>('/api/'), retry: false });
  const methods = useAuthMethods();
  const next = safeNext(params.get('next'));
  // Set by a failed SSO sign-in (SAML, OIDC, social login), which comes back here.
  const ssoError = params.get('sso_error');

  // The API root sets the csrftoken cookie the login needs.
  useEffect(() => void root.refetch(), []); // eslint-disable-line react-hooks/exhaustive-deps

  const signIn = async (how: 'password' | 'passkey', attempt: () => Promise<Record<string, unknown>>) => {
    setBusy(how);
    setError(null);
    try {
      // The API root sets the csrftoken cookie the sign-in sends back.
      await http.get('/api/');
      const me = await attempt();
      queryClient.clear();
      // A password opens a session that must still pass a passkey when an organization asks for one.
      navigate(me.second_factor_pending === true ? secondFactorPath(next) : next, { replace: true });
    } catch (err) {
      setError(err instanceof ApiError || err instanceof PasskeyError ? err.message : 'The service cannot be reached.');
    } finally {
      setBusy(null);
    }
  };

  const branding = pageBranding();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void signIn('password', () => must(api.POST('/api/login/', { body: { username, password } })));
  };

  // Username-first when a username is typed (that user's passkeys), otherwise any passkey of this site.
  const passkeySignIn = () => void signIn('passkey', () => authenticateWithPasskey(username.trim() || undefined));

  return (
    <PfLoginPage
      loginTitle={`Log in to ${branding?.name || 'Drover'}`}
      loginSubtitle={root.data?.custom_login_info || undefined}
      brandImgSrc={branding?.logo_url || undefined}
      brandImgAlt={branding?.logo_url ? branding.name : undefined}
    >
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
            <Button type="submit" variant="primary" isBlock isLoading={busy === 'password'} isDisabled={!!busy || !username || !password}>Log in</Button>
          </ActionGroup>
        </Form>
        {passkeysAvailable() && (
          <Button variant="secondary" isBlock icon={<KeyIcon />} onClick={passkeySignIn} isLoading={busy === 'passkey'} isDisabled={!!busy}>
            Sign in with a passkey
          </Button>
        )}
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
