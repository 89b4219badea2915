/**
 * WebAuthn ceremonies through the API (docs/webauthn.md), with a software authenticator holding
 * real P-256 keys: registration ("none" and "packed" attestation), the second factor of a session,
 * passwordless sign-in (username-first and usernameless), the credentials list, and what an
 * attacker tries: replayed and cloned assertions, other origins and RP IDs, expired, reused and
 * foreign challenges, another user's passkey, forged signatures, other people's credentials.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, basicAuth, createTestApp, setCookies, type Response, type SessionClient, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { SoftAuthenticator } from './helpers/soft-authenticator.ts';
import { authenticate, authenticatorFor, beginAuthentication, browser, registerPasskey } from './helpers/webauthn.ts';

const COMPLETE = '/api/v2/webauthn/authenticate/complete/';
const REGISTER_COMPLETE = '/api/v2/webauthn/register/complete/';

/** The attributes of a Set-Cookie header, lower-cased, without the name=value pair and Max-Age's value. */
function cookieShape(res: Response, name: string): string[] {
  const cookie = setCookies(res).get(name);
  assert.ok(cookie?.value, `Set-Cookie ${name}`);
  return cookie.attributes.map((a) => a.toLowerCase()).sort();
}

describe('webauthn', () => {
  let t: TestApp;
  let origin: string;

  const credentialRows = (userId: number) => t.db.query<any>('SELECT * FROM webauthn_credentials WHERE user_id = $1 ORDER BY id', [userId]);
  const auditRows = (type: string) => t.db.query<any>('SELECT * FROM audit_events WHERE event_type = $1 ORDER BY id', [type]);
  const lastAudit = async (type: string) => (await auditRows(type)).at(-1);
  const challengeCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webauthn_challenges'))[0].n;

  /** A user with a passkey on a fresh authenticator, and his signed-in browser. */
  async function enrolled(format: 'none' | 'packed' = 'none'): Promise<{ user: User; session: SessionClient; authenticator: SoftAuthenticator; credential: any }> {
    const user = await newUser(t);
    const session = await t.login(user);
    const authenticator = authenticatorFor(t, format);
    const credential = await registerPasskey(session, authenticator);
    return { user, session, authenticator, credential };
  }

  before(async () => {
    t = await createTestApp();
    origin = t.env.csrfTrustedOrigins[0];
  });
  after(() => t.close());

  describe('registration', () => {
    it('begin answers creation options for the request host, with a challenge stored for 300 seconds', async () => {
      const user = await newUser(t);
      const session = await t.login(user);
      const res = await session.post('/api/v2/webauthn/register/begin/', {});
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.rp.id, 'localhost');
      assert.equal(res.body.user.name, user.username);
      assert.match(res.body.user.id, /^[A-Za-z0-9_-]{43}$/);
      assert.notEqual(res.body.user.id, String(user.id));
      assert.equal(res.body.timeout, 300_000);
      assert.equal(res.body.authenticatorSelection.residentKey, 'preferred');
      assert.ok(res.body.pubKeyCredParams.some((p: { alg: number }) => p.alg === -7));
      const [row] = await t.db.query<any>('SELECT *, extract(epoch FROM expires - created)::int AS ttl FROM webauthn_challenges WHERE challenge = $1', [res.body.challenge]);
      assert.equal(row.mode, 'register');
      assert.equal(row.user_id, user.id);
      assert.equal(row.ttl, 300);
      const cookie = setCookies(res).get('svc_webauthn')!;
      for (const a of ['httponly', 'samesite=strict', 'path=/api/v2/webauthn/', 'max-age=300']) assert.ok(cookie.attributes.map((x) => x.toLowerCase()).includes(a), a);
      // The same user handle every time.
      assert.equal((await session.post('/api/v2/webauthn/register/begin/', {})).body.user.id, res.body.user.id);
    });

    it('stores a passkey with "none" attestation and answers it without its public key', async () => {
      const { user, credential, authenticator } = await enrolled('none');
      assert.equal(credential.type, 'webauthn_credential');
      assert.equal(credential.url, `/api/v2/webauthn/credentials/${credential.id}/`);
      assert.equal(credential.user, user.id);
      assert.equal(credential.credential_id, authenticator.credentials[0].id);
      assert.equal(credential.label, 'Passkey 1');
      assert.equal(credential.attestation_format, 'none');
      assert.equal(credential.aaguid, '00000000-0000-0000-0000-000000000000');
      assert.deepEqual(credential.transports, ['internal', 'hybrid']);
      assert.equal(credential.sign_count, 0);
      assert.equal(credential.last_used, null);
      assert.ok(!('public_key' in credential));
      const [row] = await credentialRows(user.id);
      assert.ok(row.public_key.length > 60, 'the COSE public key is stored');
      const event = await lastAudit('webauthn.registered');
      assert.equal(event.outcome, 'success');
      assert.equal(event.actor_id, user.id);
      assert.equal(event.target_id, credential.id);
      assert.equal(event.detail.attestation_format, 'none');
      assert.ok(!JSON.stringify(event).includes(Buffer.from(row.public_key).toString('base64url')));
    });

    it('stores a passkey with "packed" self attestation, under the label given', async () => {
      const user = await newUser(t);
      const session = await t.login(user);
      const credential = await registerPasskey(session, authenticatorFor(t, 'packed'), '  Work laptop ');
      assert.equal(credential.attestation_format, 'packed');
      assert.equal(credential.aaguid, 'f8a011f3-8c0a-4d15-8006-17111f9edc7d');
      assert.equal(credential.label, 'Work laptop');
    });

    it('refuses an attestation whose signature does not verify, and one for another RP ID or origin', async () => {
      const user = await newUser(t);
      const session = await t.login(user);
      const authenticator = authenticatorFor(t, 'packed');
      for (const [overrides, message] of [
        [{ rpId: 'evil.example' }, /RP ID/],
        [{ origin: 'https://evil.example' }, /https:\/\/evil\.example, which is not an origin of this service/],
      ] as const) {
        const options = (await session.post('/api/v2/webauthn/register/begin/', {})).body;
        const res = await session.post(REGISTER_COMPLETE, { credential: authenticator.register(options, overrides) });
        assert.equal(res.status, 400, res.text);
        assert.match(res.body.detail, message);
      }
      // A packed statement signed over other data.
      const options = (await session.post('/api/v2/webauthn/register/begin/', {})).body;
      const credential = authenticator.register(options);
      const other = authenticator.register({ ...options, challenge: 'AAAA' });
      const forged = { ...credential, response: { ...credential.response, clientDataJSON: other.response.clientDataJSON } };
      const res = await session.post(REGISTER_COMPLETE, { credential: forged });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(await credentialRows(user.id), []);
      const failure = await lastAudit('webauthn.registered');
      assert.equal(failure.outcome, 'failure');
      assert.equal(failure.actor_id, user.id);
    });

    it('a challenge serves once, and not past its 300 seconds', async () => {
      const user = await newUser(t);
      const session = await t.login(user);
      const authenticator = authenticatorFor(t);
      const options = (await session.post('/api/v2/webauthn/register/begin/', {})).body;
      const credential = authenticator.register(options);
      assert.equal((await session.post(REGISTER_COMPLETE, { credential })).status, 201);
      const again = await session.post(REGISTER_COMPLETE, { credential: authenticator.register(options) });
      assert.equal(again.status, 400);
      assert.match(again.body.detail, /unknown or already used/);

      const late = (await session.post('/api/v2/webauthn/register/begin/', {})).body;
      await t.db.query(`UPDATE webauthn_challenges SET expires = now() - interval '1 second' WHERE challenge = $1`, [late.challenge]);
      const expired = await session.post(REGISTER_COMPLETE, { credential: authenticator.register(late) });
      assert.equal(expired.status, 400);
      assert.match(expired.body.detail, /expired/);
      assert.equal((await credentialRows(user.id)).length, 1);
    });

    it('a challenge is bound to the browser and the session that began it', async () => {
      const user = await newUser(t);
      const first = await t.login(user);
      const second = await t.login(user);
      const authenticator = authenticatorFor(t);
      const options = (await first.post('/api/v2/webauthn/register/begin/', {})).body;
      // The same user's other session, with its own ceremony cookie, or with none.
      await second.post('/api/v2/webauthn/register/begin/', {});
      const elsewhere = await second.post(REGISTER_COMPLETE, { credential: authenticator.register(options) });
      assert.equal(elsewhere.status, 400);
      second.cookies.delete('svc_webauthn');
      const cookieless = await second.post(REGISTER_COMPLETE, { credential: authenticator.register(options) });
      assert.equal(cookieless.status, 400);
      assert.match(cookieless.body.detail, /ceremony cookie is missing/);
      // Another user's session holding the first browser's ceremony cookie.
      const mallory = await t.login(await newUser(t));
      mallory.cookies.set('svc_webauthn', first.cookies.get('svc_webauthn')!);
      assert.equal((await mallory.post(REGISTER_COMPLETE, { credential: authenticator.register(options) })).status, 400);
      assert.deepEqual(await credentialRows(user.id), []);
      // The browser that began it completes it (the attempts above did not consume its challenge).
      assert.equal((await first.post(REGISTER_COMPLETE, { credential: authenticator.register(options) })).status, 201);
    });

    it('refuses a credential registered already, to the same user or another, and an id the attestation does not hold', async () => {
      const alice = await enrolled();
      const options = (await alice.session.post('/api/v2/webauthn/register/begin/', {})).body;
      assert.equal(options.excludeCredentials[0].id, alice.authenticator.credentials[0].id);
      // Authenticators that give a new key pair an id already registered: Alice's own, then Bob's registering it.
      const taken = alice.authenticator.credentials[0].id;
      const again = await alice.session.post(REGISTER_COMPLETE, { credential: alice.authenticator.register(options, { credentialId: taken }) });
      assert.equal(again.status, 400);
      assert.match(again.body.detail, /already registered/);
      const bob = await t.login(await newUser(t));
      const bobs = (await bob.post('/api/v2/webauthn/register/begin/', {})).body;
      const stolen = await bob.post(REGISTER_COMPLETE, { credential: authenticatorFor(t).register(bobs, { credentialId: taken }) });
      assert.equal(stolen.status, 400);
      assert.equal((await lastAudit('webauthn.registered')).detail.reason, 'already_registered');
      // The id the browser names differs from the one the authenticator attested.
      const other = (await bob.post('/api/v2/webauthn/register/begin/', {})).body;
      const credential = authenticatorFor(t).register(other);
      const renamed = await bob.post(REGISTER_COMPLETE, { credential: { ...credential, id: taken, rawId: taken } });
      assert.equal(renamed.status, 400);
      assert.equal((await t.db.query('SELECT 1 FROM webauthn_credentials WHERE credential_id = $1', [taken])).length, 1);
    });

    it('only from a browser session: Basic and token callers are refused, anonymous ones too', async () => {
      const user = await newUser(t);
      assert.equal((await t.post('/api/v2/webauthn/register/begin/', {}, { as: user })).status, 403);
      const token = (await t.post('/api/v2/tokens/', {}, { as: user })).body.token;
      const withToken = await t.post('/api/v2/webauthn/register/begin/', {}, { as: null, headers: { authorization: `Bearer ${token}` } });
      assert.equal(withToken.status, 403);
      assert.match(withToken.body.detail, /browser session/);
      assert.equal((await browser(t).post('/api/v2/webauthn/register/begin/', {})).status, 401);
      assert.equal((await browser(t).post(REGISTER_COMPLETE, {})).status, 401);
    });

    it('refuses malformed bodies with 400, storing nothing', async () => {
      const user = await newUser(t);
      const session = await t.login(user);
      await session.post('/api/v2/webauthn/register/begin/', {});
      const options = (await session.post('/api/v2/webauthn/register/begin/', {})).body;
      const good = authenticatorFor(t).register(options);
      const bodies: unknown[] = [
        {}, [], { credential: null }, { credential: 'x' }, { credential: { ...good, type: 'other' } },
        { credential: { ...good, response: { ...good.response, clientDataJSON: 'not base64url!' } } },
        { credential: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('{not json').toString('base64url') } } },
        { credential: { ...good, response: { ...good.response, attestationObject: 'AAAA' } } },
        { credential: good, label: '   ' }, { credential: good, label: 'x'.repeat(101) }, { credential: good, label: 5 },
      ];
      for (const body of bodies) {
        const res = await session.post(REGISTER_COMPLETE, body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      }
      assert.deepEqual(await credentialRows(user.id), []);
    });
  });

  describe('second factor of a session', () => {
    it('verifies an assertion, moves the counter on and stamps last_used', async () => {
      const { user, session, authenticator, credential } = await enrolled();
      const res = await authenticate(session, authenticator);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, user.id);
      assert.equal(res.body.second_factor_pending, false);
      const [row] = await credentialRows(user.id);
      assert.equal(Number(row.sign_count), 1);
      assert.ok(row.last_used instanceof Date);
      const event = await lastAudit('webauthn.authenticated');
      assert.equal(event.outcome, 'success');
      assert.equal(event.actor_id, user.id);
      assert.deepEqual(event.detail, { mode: 'second_factor', credential: credential.id });
    });

    it('refuses another user\'s passkey, and a signature made with another key', async () => {
      const alice = await enrolled();
      const bob = await enrolled();
      // Bob's browser holds Alice's authenticator too.
      const options = await beginAuthentication(bob.session);
      const assertion = alice.authenticator.authenticate(options, { credentialId: alice.authenticator.credentials[0].id });
      const res = await bob.session.post(COMPLETE, { credential: assertion });
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /does not belong/);
      const refusal = await lastAudit('webauthn.authenticated');
      assert.deepEqual([refusal.outcome, refusal.actor_id, refusal.actor_username, refusal.target_id], ['failure', bob.user.id, bob.user.username, alice.user.id]);
      assert.equal(refusal.detail.reason, 'wrong_user');
      // Bob's credential id, signed with Alice's key.
      const forged = bob.authenticator.authenticate(await beginAuthentication(bob.session), { signWith: alice.authenticator.credentials[0] });
      const refused = await bob.session.post(COMPLETE, { credential: forged });
      assert.equal(refused.status, 400);
      assert.match(refused.body.detail, /could not be verified/);
      const event = await lastAudit('webauthn.authenticated');
      assert.equal(event.outcome, 'failure');
      assert.equal(event.detail.reason, 'verification_failed');
    });

    it('a user without passkeys has nothing to authenticate with', async () => {
      const session = await t.login(await newUser(t));
      const res = await session.post('/api/v2/webauthn/authenticate/begin/', {});
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /register one first/);
    });
  });

  describe('passwordless sign-in', () => {
    it('username-first ends in the cookies and session a password login gives', async () => {
      const { user, authenticator } = await enrolled('packed');
      const password = await t.post('/api/login/', { username: user.username, password: user.password }, { as: null });
      const b = browser(t);
      const options = await beginAuthentication(b, { username: user.username });
      assert.deepEqual(options.allowCredentials.map((c: { id: string }) => c.id), [authenticator.credentials[0].id]);
      assert.equal(options.userVerification, 'required');
      assert.equal(options.rpId, 'localhost');
      const res = await b.post(COMPLETE, { credential: authenticator.authenticate(options) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, user.id);
      assert.equal(res.body.username, user.username);
      assert.deepEqual(Object.keys(res.body).sort(), Object.keys(password.body).sort());
      assert.equal(res.body.second_factor_pending, false);
      for (const name of ['svc_sessionid', 'csrftoken']) assert.deepEqual(cookieShape(res, name), cookieShape(password, name), name);
      assert.equal(res.headers['x-api-session-cookie-name'], 'svc_sessionid');
      assert.equal(res.headers['session-timeout'], password.headers['session-timeout']);
      const me = await b.get('/api/v2/me/');
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].username, user.username);
      // The session works for writes as a password login's does (CSRF token included).
      assert.equal((await b.post('/api/v2/tokens/', { description: 'from a passkey session' })).status, 201);
      const [session] = await t.db.query<any>('SELECT * FROM sessions WHERE user_id = $1 ORDER BY id DESC LIMIT 1', [user.id]);
      assert.equal(session.second_factor_passed, true);
      const login = await lastAudit('auth.login');
      assert.equal(login.actor_id, user.id);
      assert.equal(login.detail.method, 'webauthn');
    });

    it('usernameless: the userHandle names the user', async () => {
      const { user, authenticator } = await enrolled();
      const b = browser(t);
      const options = await beginAuthentication(b);
      assert.deepEqual(options.allowCredentials ?? [], []);
      const res = await b.post(COMPLETE, { credential: authenticator.authenticate(options) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, user.id);
      assert.equal((await b.get('/api/v2/me/')).body.results[0].id, user.id);
      // Without a userHandle (a credential that is not discoverable), or with another user's, usernameless refuses.
      const other = await enrolled();
      for (const userHandle of [null, other.authenticator.credentials[0].userHandle]) {
        const c = browser(t);
        const refused = await c.post(COMPLETE, { credential: authenticator.authenticate(await beginAuthentication(c), { userHandle }) });
        assert.equal(refused.status, 400, String(userHandle));
        assert.equal((await c.get('/api/v2/me/')).status, 401);
      }
    });

    it('an assertion serves once: replayed, or signed again with the same counter, it is refused', async () => {
      const { user, authenticator } = await enrolled();
      const b = browser(t);
      const options = await beginAuthentication(b, { username: user.username });
      const assertion = authenticator.authenticate(options);
      assert.equal((await b.post(COMPLETE, { credential: assertion })).status, 200);
      const replay = browser(t);
      replay.cookies.set('svc_webauthn', b.cookies.get('svc_webauthn')!);
      const replayed = await replay.post(COMPLETE, { credential: assertion });
      assert.equal(replayed.status, 400);
      assert.match(replayed.body.detail, /unknown or already used/);

      // A copy of the key signs a new challenge with the counter already seen (1), then a lower one.
      for (const counter of [1, 0]) {
        const c = browser(t);
        const res = await c.post(COMPLETE, { credential: authenticator.authenticate(await beginAuthentication(c, { username: user.username }), { counter }) });
        assert.equal(res.status, 400, `counter ${counter}`);
        assert.match(res.body.detail, /counter did not move forward/);
        assert.equal((await lastAudit('webauthn.authenticated')).detail.reason, 'sign_count');
      }
      assert.equal(Number((await credentialRows(user.id))[0].sign_count), 1);
      // The genuine authenticator goes on.
      assert.equal((await authenticate(browser(t), authenticator, { username: user.username }, { counter: 7 })).status, 200);
    });

    it('authenticators without a counter (always 0) pass, each challenge once', async () => {
      const { user, authenticator } = await enrolled();
      for (let i = 0; i < 2; i++) {
        assert.equal((await authenticate(browser(t), authenticator, { username: user.username }, { counter: 0 })).status, 200);
      }
    });

    it('refuses an assertion made for another origin or RP ID', async () => {
      const { user, authenticator } = await enrolled();
      for (const [overrides, message] of [
        [{ origin: 'https://evil.example' }, /not an origin of this service/],
        [{ origin: 'null' }, /not an origin of this service/],
        [{ rpId: 'evil.example' }, /RP ID/],
      ] as const) {
        const b = browser(t);
        const res = await authenticate(b, authenticator, { username: user.username }, overrides);
        assert.equal(res.status, 400, JSON.stringify(overrides));
        assert.match(res.body.detail, message);
        assert.equal((await b.get('/api/v2/me/')).status, 401);
      }
      // An origin listed in SVC_CSRF_TRUSTED_ORIGINS, and the request's own origin, are accepted.
      assert.equal((await authenticate(browser(t), authenticator, { username: user.username }, { origin })).status, 200);
      assert.equal((await authenticate(browser(t), authenticator, { username: user.username }, { origin: 'http://localhost' })).status, 200);
    });

    it('an expired challenge is refused, without sleeping: its expiry is in the past', async () => {
      const { user, authenticator } = await enrolled();
      const b = browser(t);
      const options = await beginAuthentication(b, { username: user.username });
      await t.db.query(`UPDATE webauthn_challenges SET expires = now() - interval '1 second' WHERE challenge = $1`, [options.challenge]);
      const res = await b.post(COMPLETE, { credential: authenticator.authenticate(options) });
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /expired/);
      assert.equal((await lastAudit('webauthn.authenticated')).detail.reason, 'expired_challenge');
    });

    it('username-first with another user\'s passkey is refused', async () => {
      const alice = await enrolled();
      const bob = await enrolled();
      const b = browser(t);
      const options = await beginAuthentication(b, { username: bob.user.username });
      const res = await b.post(COMPLETE, { credential: alice.authenticator.authenticate(options, { credentialId: alice.authenticator.credentials[0].id }) });
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /does not belong/);
      assert.equal((await b.get('/api/v2/me/')).status, 401);
    });

    it('tells no one which usernames exist: an unknown one is answered as one without passkeys', async () => {
      const withoutPasskeys = await newUser(t);
      const answers = [];
      for (const username of [withoutPasskeys.username, 'nobody-by-this-name']) {
        const first = await beginAuthentication(browser(t), { username });
        const second = await beginAuthentication(browser(t), { username });
        assert.equal(first.allowCredentials.length, 1);
        assert.match(first.allowCredentials[0].id, /^[A-Za-z0-9_-]{43}$/);
        assert.deepEqual(first.allowCredentials, second.allowCredentials, 'the same made-up id every time');
        answers.push(Object.keys(first).sort());
      }
      assert.deepEqual(answers[0], answers[1]);
      // Completing such a ceremony with any real passkey fails.
      const { authenticator } = await enrolled();
      const b = browser(t);
      const options = await beginAuthentication(b, { username: 'nobody-by-this-name' });
      const res = await b.post(COMPLETE, { credential: authenticator.authenticate({ ...options, allowCredentials: [] }) });
      assert.equal(res.status, 400);
    });

    it('an unregistered credential and a disabled user are refused', async () => {
      const stranger = authenticatorFor(t);
      stranger.register({ challenge: 'AAAA', rp: { name: 'x', id: 'localhost' }, user: { id: 'AAAA', name: 'x' } });
      const b = browser(t);
      const res = await b.post(COMPLETE, { credential: stranger.authenticate(await beginAuthentication(b)) });
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /not registered/);

      const { user, authenticator } = await enrolled();
      await t.db.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
      const disabled = await authenticate(browser(t), authenticator);
      assert.equal(disabled.status, 400);
      assert.equal((await lastAudit('webauthn.authenticated')).detail.reason, 'inactive');
      // Username-first, a disabled user is answered as a username without passkeys.
      const c = browser(t);
      const options = await beginAuthentication(c, { username: user.username });
      assert.notEqual(options.allowCredentials[0].id, authenticator.credentials[0].id);
      const refused = await c.post(COMPLETE, { credential: authenticator.authenticate(options, { credentialId: authenticator.credentials[0].id }) });
      assert.equal(refused.status, 400);
      assert.equal((await c.get('/api/v2/me/')).status, 401);
    });

    it('refuses callers with an Authorization header, and cross-site posts', async () => {
      const user = await newUser(t);
      const basic = await t.post('/api/v2/webauthn/authenticate/begin/', {}, { as: user });
      assert.equal(basic.status, 400);
      assert.match(basic.body.detail, /Authorization header/);
      const { authenticator, user: owner } = await enrolled();
      const b = browser(t);
      const options = await beginAuthentication(b, { username: owner.username });
      const crossSite = await b.post(COMPLETE, { credential: authenticator.authenticate(options) }, { origin: 'https://evil.example' });
      assert.equal(crossSite.status, 403);
      assert.match(crossSite.body.detail, /CSRF Failed/);
      assert.equal((await b.post('/api/v2/webauthn/authenticate/begin/', {}, { origin: 'https://evil.example' })).status, 403);
    });

    it('counts failures against the client address, and a throttled address is refused (429)', async () => {
      const { user, authenticator } = await enrolled();
      const from = { 'x-forwarded-for': '10.20.30.40' };
      const b = browser(t);
      const begin = (await b.post('/api/v2/webauthn/authenticate/begin/', { username: user.username }, { headers: from })).body;
      const failed = await b.post(COMPLETE, { credential: authenticator.authenticate(begin, { origin: 'https://evil.example' }) }, { headers: from });
      assert.equal(failed.status, 400);
      const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM login_failures WHERE kind = 'address' AND key = '10.20.30.40'`);
      assert.equal(n, 1);
      await t.db.query(`INSERT INTO login_failures (kind, key) SELECT 'address', '10.20.30.40' FROM generate_series(1, 20)`);
      const throttled = await b.post('/api/v2/webauthn/authenticate/begin/', { username: user.username }, { headers: from });
      assert.equal(throttled.status, 429);
      assert.ok(Number(throttled.headers['retry-after']) > 0);
      assert.equal((await b.post(COMPLETE, { credential: authenticator.authenticate(begin) }, { headers: from })).status, 429);
      // Other addresses are not held up.
      assert.equal((await authenticate(browser(t), authenticator, { username: user.username })).status, 200);
      await t.db.query(`DELETE FROM login_failures WHERE key = '10.20.30.40'`);
    });

    it('caps the sign-ins under way from one address', async () => {
      const from = { 'x-forwarded-for': '10.20.30.41' };
      const before = await challengeCount();
      let refused: Response | undefined;
      for (let i = 0; i < 60 && !refused; i++) {
        const res = await browser(t).post('/api/v2/webauthn/authenticate/begin/', {}, { headers: from });
        if (res.status !== 200) refused = res;
      }
      assert.equal(refused?.status, 429);
      assert.match(refused!.body.detail, /under way from this address/);
      assert.equal((await challengeCount()) - before, 50);
      await t.db.query(`DELETE FROM webauthn_challenges WHERE remote_addr = '10.20.30.41'`);
    });

    it('refuses malformed bodies with 400', async () => {
      const b = browser(t);
      const options = await beginAuthentication(b);
      const { authenticator } = await enrolled();
      const good = authenticator.authenticate(options);
      for (const body of [
        {}, { credential: {} }, { credential: { ...good, id: 'a b' } }, { credential: { ...good, rawId: 'AAAA' } },
        { credential: { ...good, response: { ...good.response, signature: 5 } } },
        { credential: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('[]').toString('base64url') } } },
      ]) {
        const res = await b.post(COMPLETE, body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)}: ${res.text}`);
      }
      for (const body of [{ username: 5 }, { username: '' }, { username: 'x'.repeat(151) }, []]) {
        assert.equal((await b.post('/api/v2/webauthn/authenticate/begin/', body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await b.get('/api/v2/me/')).status, 401);
    });
  });

  describe('credentials', () => {
    it('a user lists his own passkeys; system administrators see everyone\'s', async () => {
      const alice = await enrolled();
      const bob = await enrolled();
      const mine = await alice.session.get('/api/v2/webauthn/credentials/');
      assert.equal(mine.status, 200);
      assert.deepEqual(mine.body.results.map((c: { id: number }) => c.id), [alice.credential.id]);
      assert.equal((await t.get(`/api/v2/webauthn/credentials/?user=${bob.user.id}`)).body.count, 1);
      assert.equal((await alice.session.get(`/api/v2/webauthn/credentials/${bob.credential.id}/`)).status, 403);
      assert.ok(!JSON.stringify(mine.body).includes('public_key'));
      const root = await t.get('/api/v2/');
      assert.equal(root.body.webauthn_credentials, '/api/v2/webauthn/credentials/');
      // Only the ceremony creates them.
      assert.equal((await alice.session.post('/api/v2/webauthn/credentials/', { label: 'x' })).status, 405);
    });

    it('renames with {label}, audited; refuses a blank or long label', async () => {
      const { user, session, credential } = await enrolled();
      const res = await session.patch(`/api/v2/webauthn/credentials/${credential.id}/`, { label: 'Phone' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.label, 'Phone');
      const event = await lastAudit('webauthn.renamed');
      assert.equal(event.actor_id, user.id);
      assert.equal(event.target_name, 'Phone');
      assert.equal(event.detail.old_label, 'Passkey 1');
      for (const label of ['', '  ', 'x'.repeat(101), null]) {
        assert.equal((await session.patch(`/api/v2/webauthn/credentials/${credential.id}/`, { label })).status, 400, String(label));
      }
      // Read-only fields stay as they are.
      await session.patch(`/api/v2/webauthn/credentials/${credential.id}/`, { sign_count: 99, user: 1, credential_id: 'x' });
      const [row] = await credentialRows(user.id);
      assert.equal(Number(row.sign_count), 0);
      assert.equal(row.credential_id, credential.credential_id);
      assert.equal(row.label, 'Phone');
    });

    it('another user, another organization\'s admin and a superuser cannot rename someone\'s passkey', async () => {
      const org = await newOrg(t);
      const owner = await newUser(t, { member: org.id });
      const session = await t.login(owner);
      const credential = await registerPasskey(session, authenticatorFor(t));
      const plain = await newUser(t, { member: org.id });
      const otherAdmin = await newUser(t, { admin: (await newOrg(t)).id });
      const orgAdmin = await newUser(t, { admin: org.id });
      for (const who of [plain, otherAdmin, orgAdmin]) {
        const url = `/api/v2/webauthn/credentials/${credential.id}/`;
        assert.equal((await t.patch(url, { label: 'mine now' }, { as: who })).status, 403, who.username);
        assert.equal((await t.delete(url, { as: who })).status, 403, who.username);
      }
      assert.equal((await t.patch(`/api/v2/webauthn/credentials/${credential.id}/`, { label: 'admin was here' })).status, 403);
      assert.equal((await credentialRows(owner.id))[0].label, 'Passkey 1');
    });

    it('deletes: the owner, or a superuser (a lost passkey), audited; the passkey no longer signs in', async () => {
      const alice = await enrolled();
      const res = await alice.session.delete(`/api/v2/webauthn/credentials/${alice.credential.id}/`);
      assert.equal(res.status, 204);
      const event = await lastAudit('webauthn.deleted');
      assert.equal(event.actor_id, alice.user.id);
      assert.equal(event.detail.credential_id, alice.credential.credential_id);
      const gone = await authenticate(browser(t), alice.authenticator, { username: alice.user.username }, { credentialId: alice.credential.credential_id });
      assert.equal(gone.status, 400);
      assert.match(gone.body.detail, /not registered/);

      const bob = await enrolled();
      assert.equal((await t.delete(`/api/v2/webauthn/credentials/${bob.credential.id}/`)).status, 204);
      assert.equal((await lastAudit('webauthn.deleted')).actor_username, ADMIN.username);
      assert.deepEqual(await credentialRows(bob.user.id), []);
    });

    it('its audit events hold no key material and no challenges', async () => {
      const rows = await t.db.query<any>(`SELECT * FROM audit_events WHERE event_type LIKE 'webauthn.%'`);
      assert.ok(rows.length > 10);
      const text = JSON.stringify(rows);
      for (const row of await t.db.query<any>('SELECT public_key FROM webauthn_credentials')) {
        assert.ok(!text.includes(Buffer.from(row.public_key).toString('base64url')));
        assert.ok(!text.includes(Buffer.from(row.public_key).toString('base64')));
      }
      assert.ok(!/challenge"\s*:\s*"/.test(text));
    });
  });

  it('a Basic-authenticated admin reaches every ceremony route without a 500', async () => {
    for (const url of ['register/begin/', 'register/complete/', 'authenticate/begin/', 'authenticate/complete/']) {
      for (const method of ['GET', 'POST', 'PUT', 'OPTIONS']) {
        const res = await t.request(method, `/api/v2/webauthn/${url}`, { body: method === 'GET' || method === 'OPTIONS' ? undefined : {}, headers: { authorization: basicAuth(ADMIN) } });
        assert.ok([200, 400, 403, 405].includes(res.status), `${method} ${url}: ${res.status} ${res.text}`);
      }
    }
  });
});
