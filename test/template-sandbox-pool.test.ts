// The sandbox's processes shared fairly across organizations: each test has a pool of its own (processes
// start with its first renders) and records the order renders settle in; nothing here reads a clock.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateConditionSets, render, SandboxError, type SandboxRequest } from '../src/templating/sandbox.ts';
import { SandboxPool } from '../src/templating/sandbox-pool.ts';

/** A template that keeps a process busy for a while (some hundred milliseconds), well inside its limit. */
const SLOW = '{% for i in range(200) %}{% for j in range(300) %}{% endfor %}{% endfor %}done';
/** One that never ends in time. */
const RUNAWAY = '{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}';
const roomy = (organization: number | null, extra: Partial<SandboxRequest> = {}): SandboxRequest => ({ organization, timeoutMs: 60_000, ...extra });

describe('Jinja sandbox pool', () => {
  let pool: SandboxPool;
  afterEach(() => pool.close());

  /** Renders on the test's pool, noting `name` in `settled` when the render ends, either way. */
  const settledIn = (settled: string[]) => (name: string, source: string, request: SandboxRequest) =>
    render(source, {}, request, pool).then(
      (text) => { settled.push(name); return text; },
      (err: Error) => { settled.push(name); throw err; },
    );

  it("serves another organization's trivial render before most of one organization's flood of slow ones", async () => {
    pool = new SandboxPool({ processes: 2 });
    const settled: string[] = [];
    const submit = settledIn(settled);
    const flood = Array.from({ length: 8 }, (_, i) => submit(`flood ${i}`, SLOW, roomy(1)));
    const trivial = submit('trivial', '{{ 1 + 1 }}', roomy(2));
    assert.equal(await trivial, '2');
    const before = settled.indexOf('trivial');
    assert.ok(before <= 1, `the trivial render waited for ${before} of the flood: ${settled.join(', ')}`);
    assert.deepEqual(await Promise.all(flood), Array(8).fill('done'));
  });

  it('takes organizations in turn when several flood the processes', async () => {
    pool = new SandboxPool({ processes: 2 });
    const settled: string[] = [];
    const submit = settledIn(settled);
    const floods = [1, 3].flatMap((org) => Array.from({ length: 6 }, (_, i) => submit(`org ${org} flood ${i}`, SLOW, roomy(org))));
    const trivial = submit('trivial', '{{ "ok" }}', roomy(2));
    assert.equal(await trivial, 'ok');
    const before = settled.indexOf('trivial');
    assert.ok(before <= 3, `the trivial render waited for ${before} of the floods: ${settled.join(', ')}`);
    await Promise.all(floods);
    // Turns alternate: neither flooding organization finished all of its renders before the other started finishing.
    const firstOf = (org: number) => settled.findIndex((name) => name.startsWith(`org ${org} `));
    const lastOf = (org: number) => settled.length - 1 - [...settled].reverse().findIndex((name) => name.startsWith(`org ${org} `));
    assert.ok(firstOf(1) < lastOf(3) && firstOf(3) < lastOf(1), settled.join(', '));
  });

  it('with a single process, a trivial render waits for at most one render of the flooding organization', async () => {
    pool = new SandboxPool({ processes: 1 });
    const settled: string[] = [];
    const submit = settledIn(settled);
    const flood = Array.from({ length: 5 }, (_, i) => submit(`flood ${i}`, SLOW, roomy(1)));
    assert.equal(await submit('trivial', '{{ 2 * 3 }}', roomy(null)), '6');
    assert.ok(settled.indexOf('trivial') <= 1, settled.join(', '));
    await Promise.all(flood);
  });

  it('stops renders past their time limit, replaces their processes and keeps serving every organization', async () => {
    pool = new SandboxPool({ processes: 2 });
    // Settled from the start: on a slow machine they are stopped before the render below is served.
    const runaways = Promise.allSettled(Array.from({ length: 3 }, () => render(RUNAWAY, {}, { organization: 1, timeoutMs: 300 }, pool)));
    const meanwhile = render('{{ x }}', { x: 'served' }, { organization: 2 }, pool);
    assert.equal(await meanwhile, 'served');
    for (const outcome of await runaways) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(outcome.reason instanceof SandboxError && /longer than 300 ms and was stopped/.test(outcome.reason.message), String(outcome.reason));
    }
    assert.equal(await render('{{ y }}', { y: 'still here' }, { organization: 1 }, pool), 'still here');
    assert.equal(await render('{{ y }}', { y: 'and here' }, { organization: 2 }, pool), 'and here');
  });

  it("refuses an organization's renders past its waiting cap at once, and no one else's", async () => {
    pool = new SandboxPool({ processes: 2, maxWaitingPerOrganization: 2 });
    const settled: string[] = [];
    const submit = settledIn(settled);
    // A new pool's processes are still starting: everything submitted now waits.
    const waiting = [submit('first', SLOW, roomy(1)), submit('second', SLOW, roomy(1))];
    const refused = submit('refused', '{{ 1 }}', roomy(1));
    await assert.rejects(refused, (err: Error) => err instanceof SandboxError && /2 templates of this organization are already waiting for the sandbox; try again later/.test(err.message));
    assert.deepEqual(settled, ['refused'], 'refused before anything rendered');
    const otherOrganization = submit('other', '{{ 1 }}', roomy(2));
    const serviceWork = submit('service work', '{{ 1 }}', roomy(1, { serviceWork: true }));
    assert.equal(await otherOrganization, '1');
    assert.equal(await serviceWork, '1');
    assert.deepEqual(await Promise.all(waiting), ['done', 'done']);
    // Once the queue has room again, the organization is served as before.
    assert.equal(await submit('later', '{{ 1 }}', roomy(1)), '1');
  });
});

describe('condition sets of several organizations', () => {
  it('are evaluated per organization and answered in the order given', async () => {
    const sets = [1, 2, 1, null, 2].map((organization, i) => ({ organization, expressions: ['event.n == ' + i, 'event.n > 0'], context: { event: { n: i } } }));
    const outcomes = await evaluateConditionSets(sets);
    assert.deepEqual(outcomes.map((set) => set.map((o) => o.matched)), [[true, false], [true, true], [true, true], [true, true], [true, true]]);
  });
});
