import type { Resource } from './resource.ts';

/**
 * The resources of one composition, in its order, each known by name. Declarations name the
 * resources they point to; the set of the service at hand resolves those names when they are used.
 */
export class ResourceSet implements Iterable<Resource> {
  readonly all: readonly Resource[];
  private readonly byName: ReadonlyMap<string, Resource>;

  constructor(resources: readonly Resource[]) {
    const byName = new Map<string, Resource>();
    for (const resource of resources) {
      if (byName.has(resource.name)) throw new Error(`two resources are named ${resource.name}`);
      byName.set(resource.name, resource);
    }
    this.all = [...resources];
    this.byName = byName;
  }

  get(name: string): Resource {
    const resource = this.byName.get(name);
    if (!resource) throw new Error(`unknown resource ${name}`);
    return resource;
  }

  find(name: string): Resource | undefined {
    return this.byName.get(name);
  }

  [Symbol.iterator](): Iterator<Resource> {
    return this.all[Symbol.iterator]();
  }
}
