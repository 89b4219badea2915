import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { policyInState, startOpaServer, startPolicySync, type OpaServer } from './helpers/opa-server.ts';

const BODY = '\n\nimport rego.v1\n\ndeny contains "no" if input.extra_vars.env == "prod"\n';

/**
 * What an organization's policy may hold: packages and data under its own namespace
 * (drover.org_<id>), and none of the built-ins that reach out of the engine unless a superuser
 * writes it. Attacks as another organization's admin, a plain member and the organization's own
 * admin; the engine is the loopback stand-in, so what reached it is checked too.
 */
describe('policy confinement', () => {
  let t: TestApp;
  let opa: OpaServer;
  let org: number;
  let other: number;
  let third: number;
  let orgAdmin: User;
  let otherAdmin: User;
  let member: User;
  let twoOrgAdmin: User;
  let stopSync: () => Promise<void>;
  let serial = 0;

  const ns = (organization: number) => `drover.org_${organization}`;
  const policyBody = (organization: number | null, rego: string, extra: Record<string, unknown> = {}) => ({
    name: `confined-${++serial}`, organization, rego_module: rego, package_path: `${organization === null ? 'global' : ns(organization)}.launch`, ...extra,
  });
  const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM policies'))[0].n;
  const queued = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM policy_engine_outbox'))[0].n;
  /** Creates as `who` and expects a 400 naming `field`, with nothing stored and nothing queued for the engine. */
  const refusedCreate = async (body: Record<string, unknown>, field: string, who?: User, pattern?: RegExp) => {
    const [stored, uploaded, waiting] = [await count(), opa.policies.size, await queued()];
    const res = await t.post('/api/v2/policies/', body, who ? { as: who } : {});
    assert.equal(res.status, 400, `${JSON.stringify(body.rego_module ?? body.package_path)}: ${res.text}`);
    assert.ok(Array.isArray(res.body[field]), `${field} named: ${res.text}`);
    if (pattern) assert.match(res.body[field].join(' '), pattern);
    assert.equal(await count(), stored, 'nothing stored');
    assert.equal(opa.policies.size, uploaded, 'nothing uploaded');
    assert.equal(await queued(), waiting, 'nothing queued for the engine');
    return res.body;
  };
  /** Creates as `who`; answers the policy once the engine has it. */
  const created = async (body: Record<string, unknown>, who?: User) => {
    const res = await t.post('/api/v2/policies/', body, who ? { as: who } : {});
    assert.equal(res.status, 201, res.text);
    return policyInState(t, res.body.id, 'synced');
  };

  before(async () => {
    opa = await startOpaServer();
    t = await createTestApp({}, { dispatcher: false });
    stopSync = await startPolicySync(t);
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_SERVER_URL: opa.url })).status, 200);
    org = (await newOrg(t)).id;
    other = (await newOrg(t)).id;
    third = (await newOrg(t)).id;
    orgAdmin = await newUser(t, { admin: org });
    otherAdmin = await newUser(t, { admin: other });
    member = await newUser(t, { member: org });
    twoOrgAdmin = await newUser(t, { admin: [org, third] });
  });
  after(async () => {
    await stopSync?.();
    await t?.close();
    await opa?.close();
  });

  it("another organization's admin cannot define packages in, read from or evaluate this organization's namespace", async () => {
    const victim = ns(org);
    await created(policyBody(org, `package ${victim}.launch${BODY}`), orgAdmin);
    const attacks = [
      `package ${victim}.launch${BODY}`,
      `package ${victim}${BODY}`,
      `package drover["org_${org}"].launch${BODY}`,
      `package drover.org_${other}\npackage ${victim}.launch${BODY}`,
      `# package drover.org_${other}.launch\npackage ${victim}.launch${BODY}`,
      `package drover${BODY}`,
      `package drover.launch${BODY}`,
      `package system.authz${BODY}`,
      `package data.${ns(other)}.launch${BODY}`,
      `package drover.org_${other}[x]${BODY}`,
      `deny contains "no" if true\n`,
    ];
    for (const rego of attacks) await refusedCreate(policyBody(other, rego), 'rego_module', otherAdmin);
    const refusal = await refusedCreate(policyBody(other, `package ${victim}.launch${BODY}`), 'rego_module', otherAdmin);
    assert.match(refusal.rego_module[0], new RegExp(`outside this organization's namespace.*drover\\.org_${other}`));

    const reads = [
      `x := data.${victim}.launch.deny`,
      `x := data["drover"]["org_${org}"]`,
      'x := data',
      'x := data.drover[org].launch',
      'x := object.get(data, ["drover"], {})',
    ];
    const own = `package ${ns(other)}.launch${BODY}`;
    for (const line of reads) await refusedCreate(policyBody(other, `${own}${line}\n`), 'rego_module', otherAdmin, /reads data/);
    await refusedCreate(policyBody(other, `package ${ns(other)}.launch\n\nimport data.${victim}.launch as theirs\n`), 'rego_module', otherAdmin, /reads data/);
    await refusedCreate(policyBody(other, own, { package_path: `${victim}.launch` }), 'package_path', otherAdmin, /outside this organization's namespace/);
    await refusedCreate(policyBody(other, own, { package_path: `drover/org_${org}` }), 'package_path', otherAdmin);

    // The same forms in comments and strings, and its own namespace's data, are fine.
    const harmless = await created(policyBody(other, `# package ${victim}\npackage ${ns(other)}["launch"]\n\nimport data.${ns(other)}.lib\n\nmsg := "package ${victim} data.${victim} http.send"\nx := input.data.drover\n`), otherAdmin);
    assert.equal(harmless.sync_state, 'synced');
  });

  it("an organization's admin cannot save or widen a policy into another namespace, nor move one there", async () => {
    const mine = await created(policyBody(org, `package ${ns(org)}.launch${BODY}`), orgAdmin);
    const before_ = opa.policies.get(`svc_${mine.id}`);
    for (const [patch, field] of [
      [{ rego_module: `package ${ns(other)}.launch${BODY}` }, 'rego_module'],
      [{ rego_module: `package ${ns(org)}.launch\npackage ${ns(other)}.launch${BODY}` }, 'rego_module'],
      [{ package_path: `${ns(other)}.launch` }, 'package_path'],
    ] as const) {
      const res = await t.patch(`/api/v2/policies/${mine.id}/`, patch, { as: orgAdmin });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body[field], res.text);
    }
    // An admin of both organizations may move a policy only with a module of the new namespace.
    const moved = await t.patch(`/api/v2/policies/${mine.id}/`, { organization: third }, { as: twoOrgAdmin });
    assert.equal(moved.status, 400, moved.text);
    assert.ok(moved.body.rego_module && moved.body.package_path, moved.text);
    const stored = (await t.get(`/api/v2/policies/${mine.id}/`)).body;
    assert.equal(stored.organization, org);
    assert.equal(stored.package_path, `${ns(org)}.launch`);
    assert.equal(opa.policies.get(`svc_${mine.id}`), before_);
    const rewritten = await t.patch(`/api/v2/policies/${mine.id}/`, { organization: third, rego_module: `package ${ns(third)}.launch${BODY}`, package_path: `${ns(third)}.launch` }, { as: twoOrgAdmin });
    assert.equal(rewritten.status, 200, rewritten.text);
    await policyInState(t, mine.id, 'synced');
  });

  it('built-ins that reach out of the engine are refused to organization admins and accepted from superusers', async () => {
    const own = `package ${ns(org)}.launch${BODY}`;
    const reaching = [
      ['x := http.send({"method": "GET", "url": "http://169.254.169.254/"})', /http\.send/],
      ['x := http["send"]({"method": "GET", "url": "http://10.0.0.1/"})', /http\.send/],
      ['x := opa.runtime().env', /opa\.runtime/],
      ['x := net.lookup_ip_addr("internal.example")', /net\.lookup_ip_addr/],
      ['x := $"{http.send({"method": "GET", "url": "http://10.0.0.1/"}).body}"', /http\.send/],
      ['deny contains "x" if { http.send({"method": "GET", "url": input.extra_vars.url}) }', /http\.send/],
    ] as const;
    for (const [line, pattern] of reaching) {
      const refusal = await refusedCreate(policyBody(org, `${own}${line}\n`), 'rego_module', orgAdmin, pattern);
      assert.match(refusal.rego_module.join(' '), /superuser/);
    }
    // Non-deterministic but local built-ins, and the names in text, are not refused.
    await created(policyBody(org, `${own}now := time.now_ns()\nroll := rand.intn("x", 6)\nid := uuid.rfc4122("x")\nok := net.cidr_contains("10.0.0.0/8", "10.1.2.3")\nmsg := "no http.send here"\n# opa.runtime()\n`), orgAdmin);

    const bySuperuser = await created(policyBody(org, `${own}x := http.send({"method": "GET", "url": "http://127.0.0.1:1/"})\n`));
    assert.match(opa.policies.get(`svc_${bySuperuser.id}`)!, /http\.send/);
    const global = await created(policyBody(null, `package anywhere.at.all${BODY}env := opa.runtime().env\n`, { package_path: 'anywhere.at.all' }));
    assert.equal(global.sync_state, 'synced');
  });

  it("an organization admin cannot keep or steer a superuser's http.send: edits and test/ are refused, switching off and on is not", async () => {
    const text = `package ${ns(org)}.launch${BODY}x := http.send({"method": "GET", "url": "http://127.0.0.1:1/"})\n`;
    const policy = await created(policyBody(org, text));
    for (const patch of [{ description: 'mine now' }, { package_path: `${ns(org)}.launch.x` }, { rego_module: `${text}# edited\n` }, { applies_to: ['ad_hoc_command'] }]) {
      const res = await t.patch(`/api/v2/policies/${policy.id}/`, patch, { as: orgAdmin });
      assert.equal(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
      assert.match(res.body.rego_module.join(' '), /http\.send may only be used in a policy a superuser writes/);
    }
    const evaluations = opa.evaluations.length;
    const tested = await t.post(`/api/v2/policies/${policy.id}/test/`, { input: { extra_vars: {} } }, { as: orgAdmin });
    assert.equal(tested.status, 400, tested.text);
    assert.equal(opa.evaluations.length, evaluations, 'not evaluated');
    assert.equal((await t.post(`/api/v2/policies/${policy.id}/disable/`, {}, { as: orgAdmin })).status, 200);
    assert.equal((await t.patch(`/api/v2/policies/${policy.id}/`, { enabled: true }, { as: orgAdmin })).status, 200);
    assert.equal((await t.patch(`/api/v2/policies/${policy.id}/`, { enabled: false }, { as: orgAdmin })).status, 200);
    assert.equal((await t.post(`/api/v2/policies/${policy.id}/enable/`, {}, { as: orgAdmin })).status, 200);
    const stored = (await t.get(`/api/v2/policies/${policy.id}/`)).body;
    assert.equal(stored.description, '');
    assert.equal(stored.rego_module, text);
    assert.equal((await t.post(`/api/v2/policies/${policy.id}/test/`, { input: {} })).status, 200, 'a superuser tests it');
    assert.equal((await t.patch(`/api/v2/policies/${policy.id}/`, { description: 'reviewed' })).status, 200, 'a superuser edits it');
  });

  it("test/ evaluates only the policy's own package: nothing in the request points it elsewhere", async () => {
    const mine = await created(policyBody(org, `package ${ns(org)}.launch${BODY}`), orgAdmin);
    opa.answer(`drover/org_${other}/launch`, { result: ['their secret verdict'] });
    const evaluations = opa.evaluations.length;
    for (const body of [
      { input: {}, package_path: `${ns(other)}.launch` },
      { input: {}, path: `drover/org_${other}/launch` },
      { input: {}, query: `data.${ns(other)}.launch` },
    ]) {
      const res = await t.post(`/api/v2/policies/${mine.id}/test/`, body, { as: orgAdmin });
      assert.equal(res.status, 400, res.text);
      assert.ok(Object.keys(body).some((key) => key !== 'input' && res.body[key]), res.text);
    }
    assert.equal(opa.evaluations.length, evaluations, 'nothing evaluated');
    const res = await t.post(`/api/v2/policies/${mine.id}/test/`, { input: { organization_id: other, package_path: `${ns(other)}.launch` } }, { as: orgAdmin });
    assert.equal(res.status, 200, res.text);
    assert.equal(opa.evaluations.at(-1)!.path, `drover/org_${org}/launch`);
    assert.doesNotMatch(res.text, /their secret verdict/);

    // A policy stored before the namespace was enforced is neither tested nor uploaded again.
    const [legacy] = await t.db.query<{ id: number }>(
      `INSERT INTO policies (name, organization_id, rego_module, package_path, enabled) VALUES ('legacy', $1, $2, $3, false) RETURNING id`,
      [org, `package ${ns(other)}.launch${BODY}`, `${ns(other)}.launch`],
    );
    const legacyTest = await t.post(`/api/v2/policies/${legacy.id}/test/`, { input: {} }, { as: orgAdmin });
    assert.equal(legacyTest.status, 400, legacyTest.text);
    assert.ok(legacyTest.body.package_path && legacyTest.body.rego_module, legacyTest.text);
    const enabled = await t.post(`/api/v2/policies/${legacy.id}/enable/`, {}, { as: orgAdmin });
    assert.equal(enabled.status, 400, enabled.text);
    const patched = await t.patch(`/api/v2/policies/${legacy.id}/`, { enabled: true }, { as: orgAdmin });
    assert.equal(patched.status, 400, patched.text);
    assert.equal((await t.patch(`/api/v2/policies/${legacy.id}/`, { enabled: false }, { as: orgAdmin })).status, 200, 'switching off is never refused');
    assert.equal((await t.get(`/api/v2/policies/${legacy.id}/`)).body.enabled, false);
    assert.equal(opa.policies.has(`svc_${legacy.id}`), false);
    assert.deepEqual(await t.db.query('SELECT policy_id FROM policy_engine_outbox WHERE policy_id = $1', [legacy.id]), [], 'nothing queued for it');
    assert.equal(opa.evaluations.length, evaluations + 1);
  });

  it('a plain member can neither create nor test policies, whatever their text', async () => {
    const mine = await created(policyBody(org, `package ${ns(org)}.launch${BODY}`), orgAdmin);
    assert.equal((await t.post('/api/v2/policies/', policyBody(org, `package ${ns(org)}.launch${BODY}`), { as: member })).status, 403);
    assert.equal((await t.post('/api/v2/policies/', policyBody(org, `package ${ns(org)}.launch${BODY}x := http.send({})\n`), { as: member })).status, 403);
    assert.equal((await t.post(`/api/v2/policies/${mine.id}/test/`, { input: {}, package_path: `${ns(other)}.launch` }, { as: member })).status, 403);
  });
});
