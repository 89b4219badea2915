/** Dark mode follows the system: PatternFly's dark theme class on <html> while the system prefers dark. */
export function followSystemColorScheme(): void {
  const query = window.matchMedia('(prefers-color-scheme: dark)');
  const apply = () => document.documentElement.classList.toggle('pf-v6-theme-dark', query.matches);
  apply();
  query.addEventListener('change', apply);
}
