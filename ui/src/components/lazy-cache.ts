import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyComponent = ComponentType<any>;
const cache = new Map<unknown, LazyExoticComponent<AnyComponent>>();

/** One React.lazy per loader, so a component loaded for a row is not loaded again for the next. */
export function lazyOnce<P extends object>(loader: () => Promise<{ default: ComponentType<P> }>): LazyExoticComponent<ComponentType<P>> {
  let component = cache.get(loader);
  if (!component) {
    component = lazy(loader as () => Promise<{ default: AnyComponent }>);
    cache.set(loader, component);
  }
  return component as LazyExoticComponent<ComponentType<P>>;
}
