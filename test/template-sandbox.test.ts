import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkExpressionSyntax, checkSyntax, evaluateCondition, evaluateConditionSets, renderSandboxed, SandboxError } from '../src/templating/sandbox.ts';

const sandboxError = (pattern: RegExp) => (err: Error) => err instanceof SandboxError && pattern.test(err.message);
const system = { organization: null };

describe('Jinja sandbox', () => {
  it('renders templates over the context given', async () => {
    assert.equal(await renderSandboxed('{{ job.name }} ran on {{ job.hosts | length }} hosts', { job: { name: 'Deploy', hosts: ['a', 'b'] } }, system), 'Deploy ran on 2 hosts');
  });

  it('evaluates conditions for their truth', async () => {
    assert.equal(await evaluateCondition('artifacts.changed_hosts | length > 0', { artifacts: { changed_hosts: ['web1'] } }, system), true);
    assert.equal(await evaluateCondition('artifacts.changed_hosts | length > 0', { artifacts: { changed_hosts: [] } }, system), false);
    assert.equal(await evaluateCondition('status == "failed" and not artifacts.ok', { status: 'failed', artifacts: {} }, system), true);
    await assert.rejects(evaluateCondition('artifacts.missing | length > 0', { artifacts: {} }, system), sandboxError(/length/));
  });

  it('evaluates sets of conditions together, each error kept with its own expression, stopping at the first failure when asked', async () => {
    const expressions = ['event.a == 1', 'event.missing | length > 0', 'event.b', 'a }} {{ b', 'event.c == 3'];
    const context = { event: { a: 1, b: 'yes', c: 3 } };
    const [all, stopping, passing] = await evaluateConditionSets([
      { organization: null, expressions, context },
      { organization: null, expressions, context, stopAtFirstFailure: true },
      { organization: null, expressions: ['event.a == 1', 'event.b', 'event.c == 3'], context, stopAtFirstFailure: true },
    ]);
    assert.deepEqual(all.map((r) => r.matched), [true, false, true, false, true]);
    assert.match(all[1].error!, /Template error/);
    assert.match(all[3].error!, /single Jinja expression/);
    assert.deepEqual(stopping.map((r) => [r.matched, r.skipped ?? false]), [[true, false], [false, false], [false, true], [false, true], [false, true]]);
    assert.match(stopping[1].error!, /Template error/);
    assert.deepEqual(passing, [{ matched: true }, { matched: true }, { matched: true }]);
    const [syntaxFirst] = await evaluateConditionSets([{ organization: null, expressions: ['event.a ==', 'event.a == 1'], context, stopAtFirstFailure: true }]);
    assert.match(syntaxFirst[0].error!, /syntax/);
    assert.equal(syntaxFirst[1].skipped, true);
  });

  it('refuses expressions that would end themselves and start a template', () => {
    assert.match(checkExpressionSyntax('1 %}text{% if 1')!, /single Jinja expression|syntax/);
    assert.match(checkExpressionSyntax('a }} {{ b')!, /single Jinja expression/);
    assert.match(checkExpressionSyntax('  ')!, /empty/);
    assert.equal(checkExpressionSyntax('a and b'), null);
  });

  it('reports syntax errors, long sources and long runs of blanks', () => {
    assert.match(checkSyntax('{% if %}')!, /syntax error/);
    assert.match(checkSyntax('x'.repeat(70_000))!, /longer than/);
    assert.match(checkSyntax(`{{ a${' '.repeat(2000)}}}`)!, /blank characters/);
    assert.equal(checkSyntax('{{ a }}'), null);
  });

  it('stops a runaway loop at its time limit and keeps working afterwards', async () => {
    await assert.rejects(renderSandboxed('{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}', {}, { organization: null, timeoutMs: 300 }), sandboxError(/longer than 300 ms/));
    assert.equal(await renderSandboxed('{{ x }}', { x: 'still here' }, system), 'still here');
  });

  it('stops a template that allocates without bound, without harming the service', async () => {
    await assert.rejects(renderSandboxed('{% for i in range(100000000) %}x{% endfor %}', {}, { organization: null, timeoutMs: 10_000 }), sandboxError(/memory|longer than/));
    assert.equal(await renderSandboxed('{{ 1 + 1 }}', {}, system), '2');
  });

  it('caps the output', async () => {
    await assert.rejects(renderSandboxed('{% for i in range(2000) %}abcdefghij{% endfor %}', {}, { organization: null, maxOutputChars: 1000 }), sandboxError(/longer than 1000 characters/));
  });

  it('gives templates no way into the host language', async () => {
    for (const probe of ["{{ ''.constructor }}", '{{ x.__proto__ }}', '{{ x.constructor.constructor("return process")() }}', "{{ range.constructor }}"]) {
      const outcome = await renderSandboxed(probe, { x: {} }, system).then((text) => text, (err: Error) => err.message);
      assert.ok(outcome === '' || /^Template error: /.test(outcome), `${probe} gave ${outcome}`);
    }
  });
});
