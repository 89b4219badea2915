import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, setCookies, type Response, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { assertionXml, createTestIdp, keyPair, readAuthnRequest, responseXml, signElement, toBase64, type AssertionOptions, type KeyPair, type TestIdp } from './helpers/saml-idp.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const BASE = 'https://drover.test';
const ACS = `${BASE}/sso/complete/saml/`;
const SP_ENTITY = `${BASE}/saml-sp`;
const ATTRS = {
  attr_user_permanent_id: 'uid',
  attr_username: 'uid',
  attr_email: 'mail',
  attr_first_name: 'givenName',
  attr_last_name: 'sn',
};

/** A browser: keeps its cookies, follows nothing by itself. */
class Browser {
  cookies = new Map<string, string>();
  constructor(private readonly t: TestApp) {}

  private keep(res: Response): Response {
    for (const [name, { value }] of setCookies(res)) {
      if (value === null) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ') } : {};
  }

  async get(url: string): Promise<Response> {
    return this.keep(await this.t.request('GET', url, { as: null, headers: this.cookieHeader() }));
  }

  /** The IdP's auto-submitted form: a cross-site POST to the ACS. */
  async postForm(url: string, fields: Record<string, string>): Promise<Response> {
    const headers = { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', origin: 'https://corp.idp.test' };
    return this.keep(await this.t.request('POST', url, { as: null, headers, payload: new URLSearchParams(fields).toString() }));
  }
}

describe('SAML sign-in', () => {
  let t: TestApp;
  let sp: KeyPair;
  let corp: TestIdp;
  let partner: TestIdp;
  let stranger: KeyPair;
  let plain: User;
  let orgAdmin: User;
  let auditor: User;

  const idpSetting = (idp: TestIdp) => ({ entity_id: idp.entityId, url: idp.url, x509cert: idp.cert, ...ATTRS });

  /** Starts a sign-in at `idp` in a fresh browser: answers the browser, the AuthnRequest id and the RelayState. */
  async function start(idp = 'corp', next?: string) {
    const browser = new Browser(t);
    const res = await browser.get(`/sso/login/saml/?idp=${idp}${next ? `&next=${encodeURIComponent(next)}` : ''}`);
    assert.equal(res.status, 302, res.text);
    const request = readAuthnRequest(res.headers.location as string);
    return { browser, ...request };
  }

  const answer = (over: Partial<AssertionOptions> & { inResponseTo: string | null }): AssertionOptions => ({
    audience: SP_ENTITY,
    acsUrl: ACS,
    nameId: 'alice',
    attributes: { uid: 'alice', mail: 'alice@example.com', givenName: 'Alice', sn: 'Liddell' },
    ...over,
  });

  async function post(browser: Browser, xml: string, relayState: string) {
    return browser.postForm('/sso/complete/saml/', { SAMLResponse: toBase64(xml), RelayState: relayState });
  }

  function assertRefused(res: Response, message: RegExp) {
    assert.equal(res.status, 302, res.text);
    const location = new URL(res.headers.location as string, BASE);
    assert.equal(location.pathname, '/login');
    assert.match(location.searchParams.get('sso_error') ?? '', message);
    assert.ok(!setCookies(res).get('svc_sessionid')?.value, 'no session on a refused answer');
  }

  const userNamed = async (username: string) => (await t.db.query<AnyRow>('SELECT * FROM users WHERE username = $1', [username]))[0];

  before(async () => {
    t = await createTestApp();
    [sp, corp, partner, stranger] = await Promise.all([keyPair('drover.test'), createTestIdp('corp'), createTestIdp('partner'), keyPair('stranger')]);
    const org = await newOrg(t, { name: 'Existing' });
    plain = await newUser(t);
    orgAdmin = await newUser(t, { admin: org });
    auditor = await newUser(t, { is_system_auditor: true });
    const res = await t.patch('/api/v2/settings/system/', { SVC_URL_BASE: BASE });
    assert.equal(res.status, 200, res.text);
    const saml = await t.patch('/api/v2/settings/saml/', {
      SOCIAL_AUTH_SAML_SP_ENTITY_ID: SP_ENTITY,
      SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: sp.cert,
      SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: sp.key,
      SOCIAL_AUTH_SAML_ORG_INFO: { 'en-US': { name: 'drover', displayname: 'Drover', url: BASE } },
      SOCIAL_AUTH_SAML_TECHNICAL_CONTACT: { givenName: 'Tech', emailAddress: 'tech@example.com' },
      SOCIAL_AUTH_SAML_SUPPORT_CONTACT: { givenName: 'Support', emailAddress: 'support@example.com' },
      SOCIAL_AUTH_SAML_ENABLED_IDPS: { corp: idpSetting(corp), partner: idpSetting(partner) },
      SOCIAL_AUTH_SAML_ORGANIZATION_ATTR: { saml_attr: 'member_of', saml_admin_attr: 'admin_of' },
      SOCIAL_AUTH_SAML_TEAM_ATTR: { saml_attr: 'groups', team_org_map: [{ team: 'ops', organization: 'Engineering' }, { team: 'web', team_alias: 'Web Team', organization: 'Engineering' }] },
    });
    assert.equal(saml.status, 200, saml.text);
  });

  after(() => t.close());

  describe('service provider', () => {
    it('serves its metadata: entity id, ACS, certificate, contacts', async () => {
      const res = await t.get('/sso/metadata/saml/', { as: null });
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type'] as string, /^text\/xml/);
      assert.match(res.text, new RegExp(`entityID="${SP_ENTITY}"`));
      assert.match(res.text, new RegExp(`Location="${ACS}"`));
      assert.ok(res.text.includes(sp.cert.split('\n')[1]), 'the SP certificate is published');
      assert.match(res.text, /tech@example.com/);
      assert.doesNotMatch(res.text, /PRIVATE KEY|Signature>/);
    });

    it('signs its metadata when SECURITY_CONFIG says so', async () => {
      assert.equal((await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_SECURITY_CONFIG: { signMetadata: true } })).status, 200);
      try {
        const res = await t.get('/sso/metadata/saml/', { as: null });
        assert.equal(res.status, 200);
        assert.match(res.text, /<(ds:)?Signature/);
      } finally {
        await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_SECURITY_CONFIG: { requestedAuthnContext: false } });
      }
    });

    it('lists one sign-in method per identity provider at /api/v2/auth/', async () => {
      const res = await t.get('/api/v2/auth/', { as: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body['saml:corp'], { login_url: '/sso/login/saml/?idp=corp', complete_url: ACS, metadata_url: '/sso/metadata/saml/', name: 'corp' });
      assert.ok(res.body['saml:partner']);
    });

    it('answers the ACS URL as a read-only setting', async () => {
      const res = await t.get('/api/v2/settings/saml/');
      assert.equal(res.body.SOCIAL_AUTH_SAML_CALLBACK_URL, ACS);
      assert.equal((await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_CALLBACK_URL: 'https://evil.test/' })).status, 400);
    });
  });

  describe('login redirect', () => {
    for (const name of ['corp', 'partner']) {
      it(`sends the browser to ${name} with an AuthnRequest and RelayState`, async () => {
        const idp = name === 'corp' ? corp : partner;
        const { browser, xml, id, relayState, url } = await start(name);
        assert.equal(`${url.origin}${url.pathname}`, idp.url);
        assert.match(xml, new RegExp(`Destination="${idp.url}"`));
        assert.match(xml, new RegExp(`AssertionConsumerServiceURL="${ACS}"`));
        assert.match(xml, new RegExp(`<saml:Issuer[^>]*>${SP_ENTITY}</saml:Issuer>`));
        assert.ok(id);
        assert.match(relayState, new RegExp(`^${name}:[A-Za-z0-9_-]{43}$`));
        assert.ok(browser.cookies.get('svc_saml_state')?.startsWith(relayState.slice(name.length + 1)));
      });
    }

    it('refuses an unknown identity provider', async () => {
      const res = await t.get('/sso/login/saml/?idp=nosuch', { as: null });
      assertRefused(res, /Unknown SAML identity provider/);
    });
  });

  describe('successful sign-in', () => {
    it('creates the user with mapped attributes and memberships, and starts a session', async () => {
      const { browser, id, relayState } = await start('corp', '/#/jobs');
      const xml = responseXml(corp, answer({ inResponseTo: id, attributes: { uid: 'alice', mail: 'alice@example.com', givenName: 'Alice', sn: 'Liddell', member_of: ['Engineering', 'Existing'], admin_of: 'Engineering', groups: ['ops', 'web'] } }));
      const res = await post(browser, xml, relayState);
      assert.equal(res.status, 302, res.text);
      assert.equal(res.headers.location, '/#/jobs');
      assert.ok(browser.cookies.get('svc_sessionid'));
      assert.ok(!browser.cookies.has('svc_saml_state'), 'the state is used up');

      const me = await browser.get('/api/v2/me/');
      assert.equal(me.status, 200);
      const alice = me.body.results[0];
      assert.equal(alice.username, 'alice');
      assert.equal(alice.email, 'alice@example.com');
      assert.equal(alice.first_name, 'Alice');
      assert.equal(alice.last_name, 'Liddell');
      assert.equal(alice.external_account, 'saml');
      assert.equal(alice.is_superuser, false);

      const orgs = await t.get(`/api/v2/users/${alice.id}/organizations/`);
      assert.deepEqual(orgs.body.results.map((o: any) => o.name).sort(), ['Engineering', 'Existing']);
      const admin = await t.get(`/api/v2/users/${alice.id}/admin_of_organizations/`);
      assert.deepEqual(admin.body.results.map((o: any) => o.name), ['Engineering']);
      const teams = await t.get(`/api/v2/users/${alice.id}/teams/`);
      assert.deepEqual(teams.body.results.map((team: any) => team.name).sort(), ['Web Team', 'ops']);
    });

    it('updates the user on the next sign-in and takes away what the attributes no longer say', async () => {
      const { browser, id, relayState } = await start('corp');
      const xml = responseXml(corp, answer({ inResponseTo: id, attributes: { uid: 'alice', mail: 'alice@new.example.com', givenName: 'Alice', sn: 'L.', member_of: 'Engineering', groups: 'ops' } }));
      const res = await post(browser, xml, relayState);
      assert.equal(res.status, 302, res.text);
      assert.equal(res.headers.location, '/');
      const alice = await userNamed('alice');
      assert.equal(alice.email, 'alice@new.example.com');
      assert.equal(alice.last_name, 'L.');
      const orgs = await t.get(`/api/v2/users/${alice.id}/organizations/`);
      assert.deepEqual(orgs.body.results.map((o: any) => o.name), ['Engineering']);
      assert.equal((await t.get(`/api/v2/users/${alice.id}/admin_of_organizations/`)).body.count, 0);
      const teams = await t.get(`/api/v2/users/${alice.id}/teams/`);
      assert.deepEqual(teams.body.results.map((team: any) => team.name), ['ops']);
      const events = await t.db.query<AnyRow>(`SELECT event_type, detail FROM audit_events WHERE target_name = 'alice' AND event_type LIKE 'auth.%' ORDER BY id`);
      assert.ok(events.filter((e) => e.event_type === 'auth.external_login').length >= 2);
      assert.ok(events.some((e) => e.event_type === 'auth.mapping_changed' && e.detail.granted === false));
    });

    it('signs in through the second identity provider with its own certificate', async () => {
      const { browser, id, relayState } = await start('partner');
      const res = await post(browser, responseXml(partner, answer({ inResponseTo: id, nameId: 'bob', attributes: { uid: 'bob', mail: 'bob@partner.example' } })), relayState);
      assert.equal(res.status, 302, res.text);
      assert.equal(res.headers.location, '/');
      assert.equal((await userNamed('bob')).external_account, 'saml');
    });

    it('accepts a signed response around an unsigned assertion', async () => {
      const { browser, id, relayState } = await start('corp');
      const res = await post(browser, responseXml(corp, answer({ inResponseTo: id, sign: 'response' })), relayState);
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, '/');
    });

    it('sets flags only as USER_FLAGS_BY_ATTR says', async () => {
      const attributes = { uid: 'carol', mail: 'carol@example.com', Role: 'admins', admin_of: 'Engineering' };
      let flow = await start('corp');
      assert.equal((await post(flow.browser, responseXml(corp, answer({ inResponseTo: flow.id, nameId: 'carol', attributes })), flow.relayState)).status, 302);
      assert.equal((await userNamed('carol')).is_superuser, false, 'an admin role or a Role attribute alone makes no superuser');

      assert.equal((await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: { is_superuser_role: ['admins'] } })).status, 200);
      try {
        flow = await start('corp');
        await post(flow.browser, responseXml(corp, answer({ inResponseTo: flow.id, nameId: 'carol', attributes })), flow.relayState);
        assert.equal((await userNamed('carol')).is_superuser, true);
        flow = await start('corp');
        await post(flow.browser, responseXml(corp, answer({ inResponseTo: flow.id, nameId: 'carol', attributes: { ...attributes, Role: 'staff' } })), flow.relayState);
        assert.equal((await userNamed('carol')).is_superuser, false, 'remove_superusers defaults to true');
      } finally {
        await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: {} });
      }
    });

    it('refuses to take over a local user of the same name', async () => {
      const { browser, id, relayState } = await start('corp');
      const res = await post(browser, responseXml(corp, answer({ inResponseTo: id, nameId: plain.username, attributes: { uid: plain.username } })), relayState);
      assertRefused(res, new RegExp(`username "${plain.username}" already belongs to another account`));
      assert.equal((await userNamed(plain.username)).external_account, null);
      const [conflict] = (await t.get(`/api/v2/audit_events/?event_type=auth.identity_conflict&target_id=${plain.id}`)).body.results;
      assert.deepEqual(conflict.detail, { backend: 'saml', source: 'saml:corp', subject: plain.username, username: plain.username, holder: 'local' });
    });
  });

  describe('users are linked by identity provider and permanent id', () => {
    it("the other identity provider asserting alice's username does not get her account", async () => {
      const alice = await userNamed('alice');
      const { browser, id, relayState } = await start('partner');
      const xml = responseXml(partner, answer({ inResponseTo: id, attributes: { uid: 'alice', mail: 'alice@partner.example', Role: 'admins' } }));
      assertRefused(await post(browser, xml, relayState), /username "alice" already belongs to another account/);
      const after = await userNamed('alice');
      assert.equal(after.email, alice.email, 'the account holding the name is left as it was');
      const conflicts = (await t.get(`/api/v2/audit_events/?event_type=auth.identity_conflict&target_id=${alice.id}`)).body.results;
      assert.equal(conflicts.length, 1);
      assert.equal(conflicts[0].outcome, 'denied');
      assert.deepEqual(conflicts[0].detail, { backend: 'saml', source: 'saml:partner', subject: 'alice', username: 'alice', holder: 'external' });
      assert.ok(!JSON.stringify(conflicts).includes('SAMLResponse'));
      const failure = (await t.get('/api/v2/audit_events/?event_type=auth.login&outcome=failure&actor_username=alice')).body.results[0];
      assert.equal(failure.detail.reason, 'identity_conflict');
      // Alice at her own identity provider is still herself.
      const own = await start('corp');
      assert.equal((await post(own.browser, responseXml(corp, answer({ inResponseTo: own.id })), own.relayState)).headers.location, '/');
      assert.equal((await own.browser.get('/api/v2/me/')).body.results[0].id, alice.id);
    });

    it('the same permanent id reaches the same user when the username changes at the identity provider', async () => {
      const idps = { corp: idpSetting(corp), partner: { ...idpSetting(partner), attr_user_permanent_id: 'name_id' } };
      assert.equal((await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_ENABLED_IDPS: idps })).status, 200);
      try {
        let flow = await start('partner');
        await post(flow.browser, responseXml(partner, answer({ inResponseTo: flow.id, nameId: 'p-0001', attributes: { uid: 'pat', mail: 'pat@partner.example' } })), flow.relayState);
        const pat = await userNamed('pat');
        assert.ok(pat);
        flow = await start('partner');
        const res = await post(flow.browser, responseXml(partner, answer({ inResponseTo: flow.id, nameId: 'p-0001', attributes: { uid: 'patricia', mail: 'patricia@partner.example' } })), flow.relayState);
        assert.equal(res.headers.location, '/');
        const me = (await flow.browser.get('/api/v2/me/')).body.results[0];
        assert.deepEqual([me.id, me.username, me.email], [pat.id, 'pat', 'patricia@partner.example']);
        assert.equal(await userNamed('patricia'), undefined);
        const [event] = (await t.get(`/api/v2/audit_events/?event_type=auth.external_login&target_id=${pat.id}`)).body.results;
        assert.deepEqual(event.detail, { backend: 'saml', source: 'saml:partner', uid: 'p-0001', created: false });
      } finally {
        await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_ENABLED_IDPS: { corp: idpSetting(corp), partner: idpSetting(partner) } });
      }
    });
  });

  describe('refused answers (fail closed)', () => {
    const mallory = { uid: 'mallory', mail: 'mallory@example.com' };
    const noMallory = async () => assert.equal(await userNamed('mallory'), undefined);

    it('refuses an unsigned answer', async () => {
      const { browser, id, relayState } = await start();
      assertRefused(await post(browser, responseXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory, sign: 'none' })), relayState), /not validly signed/);
      await noMallory();
    });

    it('refuses an assertion signed by another key', async () => {
      const { browser, id, relayState } = await start();
      assertRefused(await post(browser, responseXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory, signer: stranger })), relayState), /not validly signed/);
      await noMallory();
    });

    it("refuses an assertion signed with the other identity provider's key", async () => {
      const { browser, id, relayState } = await start('corp');
      assertRefused(await post(browser, responseXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory, signer: partner })), relayState), /not validly signed/);
      await noMallory();
    });

    it("refuses the other identity provider's answer posted as this one's", async () => {
      const { browser, id, relayState } = await start('corp');
      assertRefused(await post(browser, responseXml(partner, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory })), relayState), /not validly signed|not issued/);
      await noMallory();
    });

    it('refuses an expired assertion', async () => {
      const { browser, id, relayState } = await start();
      const past = new Date(Date.now() - 3600_000);
      const xml = responseXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory, notBefore: new Date(past.getTime() - 60_000), notOnOrAfter: past }));
      assertRefused(await post(browser, xml, relayState), /expired/);
      await noMallory();
    });

    it('refuses an assertion for another audience', async () => {
      const { browser, id, relayState } = await start();
      assertRefused(await post(browser, responseXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory, audience: 'https://other.test/sp' })), relayState), /audience/);
      await noMallory();
    });

    it('refuses an assertion for another recipient or destination', async () => {
      let flow = await start();
      assertRefused(await post(flow.browser, responseXml(corp, answer({ inResponseTo: flow.id, nameId: 'mallory', attributes: mallory, recipient: 'https://other.test/acs' })), flow.relayState), /Recipient/);
      flow = await start();
      assertRefused(await post(flow.browser, responseXml(corp, answer({ inResponseTo: flow.id, nameId: 'mallory', attributes: mallory, destination: 'https://other.test/acs' })), flow.relayState), /Destination/);
      await noMallory();
    });

    it('refuses an unsolicited answer and one answering a request never issued', async () => {
      let flow = await start();
      assertRefused(await post(flow.browser, responseXml(corp, answer({ inResponseTo: null, nameId: 'mallory', attributes: mallory })), flow.relayState), /unsolicited/);
      flow = await start();
      assertRefused(await post(flow.browser, responseXml(corp, answer({ inResponseTo: '_never-issued', nameId: 'mallory', attributes: mallory })), flow.relayState), /unsolicited/);
      await noMallory();
    });

    it('refuses a replayed answer and a replayed assertion', async () => {
      const first = await start();
      const signed = signElement(assertionXml(corp, answer({ inResponseTo: first.id, nameId: 'dave', attributes: { uid: 'dave' }, assertionId: '_replayed-assertion' })), 'Assertion', corp);
      const xml = responseXml(corp, answer({ inResponseTo: first.id }), signed);
      const stateCookie = first.browser.cookies.get('svc_saml_state')!;
      assert.equal((await post(first.browser, xml, first.relayState)).headers.location, '/');

      // The same answer again, from a browser that kept the state cookie.
      const replay = new Browser(t);
      replay.cookies.set('svc_saml_state', stateCookie);
      assertRefused(await post(replay, xml, first.relayState), /unsolicited|already been used/);

      // The same assertion id in a fresh, validly signed answer to a new request.
      const second = await start();
      const again = signElement(assertionXml(corp, answer({ inResponseTo: second.id, nameId: 'dave', attributes: { uid: 'dave' }, assertionId: '_replayed-assertion' })), 'Assertion', corp);
      assertRefused(await post(second.browser, responseXml(corp, answer({ inResponseTo: second.id }), again), second.relayState), /already been used/);
    });

    it('refuses an answer posted to a browser that did not start the sign-in (login CSRF)', async () => {
      const { id, relayState } = await start();
      const victim = new Browser(t);
      assertRefused(await post(victim, responseXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory })), relayState), /not started in this browser/);
      await noMallory();
    });

    it('refuses an XML signature wrapping attempt', async () => {
      const { browser, id, relayState } = await start();
      // A validly signed assertion for eve, hidden inside a forged unsigned one for mallory.
      const genuine = signElement(assertionXml(corp, answer({ inResponseTo: id, nameId: 'eve', attributes: { uid: 'eve' } })), 'Assertion', corp);
      const forged = assertionXml(corp, answer({ inResponseTo: id, nameId: 'mallory', attributes: mallory })).replace('<saml:Conditions', `<saml:Advice>${genuine}</saml:Advice><saml:Conditions`);
      assertRefused(await post(browser, responseXml(corp, answer({ inResponseTo: id }), forged), relayState), /not validly signed/);
      // The forged assertion with the genuine signature moved into it.
      const flow = await start();
      const genuine2 = signElement(assertionXml(corp, answer({ inResponseTo: flow.id, nameId: 'eve', attributes: { uid: 'eve' } })), 'Assertion', corp);
      const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(genuine2)![0];
      const id2 = /ID="([^"]+)"/.exec(genuine2)![1];
      const moved = assertionXml(corp, answer({ inResponseTo: flow.id, nameId: 'mallory', attributes: mallory, assertionId: id2 })).replace(/(<saml:Issuer>[^<]*<\/saml:Issuer>)/, `$1${signature}`);
      assertRefused(await post(flow.browser, responseXml(corp, answer({ inResponseTo: flow.id }), moved), flow.relayState), /not validly signed/);
      await noMallory();
      assert.equal(await userNamed('eve'), undefined);
    });

    it('records each refusal without the answer', async () => {
      const rows = await t.db.query<AnyRow>(`SELECT detail FROM audit_events WHERE event_type = 'auth.login' AND outcome = 'failure'`);
      const reasons = new Set(rows.map((r) => r.detail?.reason));
      for (const reason of ['bad_signature', 'expired', 'wrong_audience', 'unsolicited', 'replayed', 'state_mismatch']) assert.ok(reasons.has(reason), reason);
      assert.ok(!JSON.stringify(rows).includes('SAMLResponse'));
    });
  });

  describe('settings', () => {
    it('hides the SP key from every reader, and from the activity stream and audit log', async () => {
      for (const who of [undefined, auditor]) {
        const res = await t.get('/api/v2/settings/saml/', who ? { as: who } : {});
        assert.equal(res.status, 200);
        assert.equal(res.body.SOCIAL_AUTH_SAML_SP_PRIVATE_KEY, '$encrypted$');
      }
      const keyBody = sp.key.split('\n')[1];
      const stored = await t.db.query<AnyRow>(`SELECT value::text AS v FROM settings WHERE key = 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY'`);
      assert.ok(!stored[0].v.includes(keyBody), 'encrypted at rest');
      for (const table of ['activity_stream', 'audit_events']) {
        const rows = await t.db.query<AnyRow>(`SELECT * FROM ${table}`);
        assert.ok(!JSON.stringify(rows).includes(keyBody), table);
      }
    });

    it('lets neither a plain user nor an organization admin read or change them', async () => {
      for (const who of [plain, orgAdmin]) {
        assert.equal((await t.get('/api/v2/settings/saml/', { as: who })).status, 403);
        assert.equal((await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_SP_ENTITY_ID: 'https://evil.test/' }, { as: who })).status, 403);
      }
      assert.equal((await t.patch('/api/v2/settings/saml/', { SOCIAL_AUTH_SAML_SP_ENTITY_ID: 'https://evil.test/' }, { as: auditor })).status, 403);
      assert.equal((await t.get('/api/v2/settings/saml/')).body.SOCIAL_AUTH_SAML_SP_ENTITY_ID, SP_ENTITY);
    });

    it('refuses invalid values with the setting named, storing nothing', async () => {
      const other = await keyPair('other');
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: 'not a certificate' }, 'SOCIAL_AUTH_SAML_SP_PUBLIC_CERT', /certificate/],
        [{ SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: 'not a key' }, 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY', /private key/],
        [{ SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: other.key }, 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY', /does not belong/],
        [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: { x: { entity_id: 'e', url: 'javascript:alert(1)', x509cert: corp.cert } } }, 'SOCIAL_AUTH_SAML_ENABLED_IDPS', /x\.url/],
        [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: { x: { entity_id: 'e', url: 'https://x.test/', x509cert: 'garbage!' } } }, 'SOCIAL_AUTH_SAML_ENABLED_IDPS', /x\.x509cert/],
        [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: { x: { url: 'https://x.test/', x509cert: corp.cert } } }, 'SOCIAL_AUTH_SAML_ENABLED_IDPS', /entity_id/],
        [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: { 'bad name': { entity_id: 'e', url: 'https://x.test/', x509cert: corp.cert } } }, 'SOCIAL_AUTH_SAML_ENABLED_IDPS', /name/],
        [{ SOCIAL_AUTH_SAML_SECURITY_CONFIG: { wantAssertionsSigned: 'yes' } }, 'SOCIAL_AUTH_SAML_SECURITY_CONFIG', /true or false/],
        [{ SOCIAL_AUTH_SAML_TECHNICAL_CONTACT: { givenName: 'x', emailAddress: 'nope' } }, 'SOCIAL_AUTH_SAML_TECHNICAL_CONTACT', /email/],
        [{ SOCIAL_AUTH_SAML_TEAM_ATTR: { saml_attr: 'g', team_org_map: [{ team: 't' }] } }, 'SOCIAL_AUTH_SAML_TEAM_ATTR', /organization/],
        [{ SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: { is_superuser_value: [1] } }, 'SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR', /string/],
      ];
      const before = (await t.get('/api/v2/settings/saml/')).body;
      for (const [body, name, message] of cases) {
        const res = await t.patch('/api/v2/settings/saml/', { ...body, SOCIAL_AUTH_SAML_SP_ENTITY_ID: 'https://changed.test/' });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.match(res.body[name].join(' '), message);
      }
      assert.deepEqual((await t.get('/api/v2/settings/saml/')).body, before);
    });

    it('keeps the key when $encrypted$ is sent back', async () => {
      const { SOCIAL_AUTH_SAML_CALLBACK_URL: _readOnly, ...read } = (await t.get('/api/v2/settings/saml/')).body;
      assert.equal((await t.put('/api/v2/settings/saml/', read)).status, 200);
      const { browser, id, relayState } = await start();
      assert.equal((await post(browser, responseXml(corp, answer({ inResponseTo: id })), relayState)).headers.location, '/');
    });
  });
});
