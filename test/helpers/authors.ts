/**
 * Who made and last changed an object, as every resource shows it (docs/api.md#objects): the
 * related links created_by/modified_by and their user summaries, both absent when no user did.
 */
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import type { User } from './factories.ts';

type Serialized = { id: number; related: Record<string, string>; summary_fields: Record<string, unknown> };

/** Asserts the object was made and last changed by no user. */
export function assertNoAuthor(object: Serialized, label = `object ${object.id}`): void {
  for (const name of ['created_by', 'modified_by']) {
    assert.equal(object.related[name], undefined, `${label}: related.${name}`);
    assert.equal(object.summary_fields[name], undefined, `${label}: summary_fields.${name}`);
  }
}

/** Asserts who made the object (created_by) and who last changed it (modified_by, the maker unless given). */
export function assertAuthors(object: Serialized, createdBy: Pick<User, 'id' | 'username'>, modifiedBy = createdBy): void {
  for (const [name, user] of [['created_by', createdBy], ['modified_by', modifiedBy]] as const) {
    assert.equal(object.related[name], `/api/v2/users/${user.id}/`, `related.${name}`);
    assert.deepEqual(object.summary_fields[name], { id: user.id, username: user.username, first_name: '', last_name: '' }, `summary_fields.${name}`);
  }
}

/**
 * Asserts that a list and the detail of each of its objects show no author, that the list filters on
 * the two fields (`created_by__isnull`, `modified_by__isnull`) and that OPTIONS offers searching by them.
 */
export async function assertListHasNoAuthors(t: TestApp, listPath: string): Promise<void> {
  const list = await t.get(`${listPath}?page_size=200`);
  assert.equal(list.status, 200, list.text);
  assert.ok(list.body.count > 0, `${listPath} is empty`);
  for (const object of list.body.results) {
    assertNoAuthor(object, `${listPath} ${object.id}`);
    assertNoAuthor((await t.get(`${listPath}${object.id}/`)).body, `${listPath}${object.id}/`);
  }
  for (const name of ['created_by', 'modified_by']) {
    assert.equal((await t.get(`${listPath}?${name}__isnull=true`)).body.count, list.body.count, `${listPath} ${name}__isnull=true`);
    assert.equal((await t.get(`${listPath}?${name}__isnull=false`)).body.count, 0, `${listPath} ${name}__isnull=false`);
  }
  const options = await t.request('OPTIONS', listPath);
  for (const name of ['created_by', 'modified_by']) assert.ok(options.body.related_search_fields.includes(`${name}__search`), `${listPath} OPTIONS ${name}__search`);
}
