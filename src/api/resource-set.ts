/**
 * The resources of one composition, in its order, each known by name. Declarations name the
 * resources they point to; the set of the service at hand resolves those names when they are used.
 * Generic over what it holds so that it imports no declaration: src/api/context.ts names the set of
 * resources (ResourceSet there) that the rest of the service uses.
 */
export class ResourceSet<R extends { readonly name: string }> implements Iterable<R> {
  readonly all: readonly R[];
  private readonly byName: ReadonlyMap<string, R>;

  constructor(resources: readonly R[]) {
    const byName = new Map<string, R>();
    for (const resource of resources) {
      if (byName.has(resource.name)) throw new Error(`two resources are named ${resource.name}`);
      byName.set(resource.name, resource);
    }
    this.all = [...resources];
    this.byName = byName;
  }

  get(name: string): R {
    const resource = this.byName.get(name);
    if (!resource) throw new Error(`unknown resource ${name}`);
    return resource;
  }

  find(name: string): R | undefined {
    return this.byName.get(name);
  }

  [Symbol.iterator](): Iterator<R> {
    return this.all[Symbol.iterator]();
  }
}
