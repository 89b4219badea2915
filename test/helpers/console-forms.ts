/** Steps of the console's forms that browser tests share. */
import type { Page } from 'playwright-core';

/**
 * Picks an object in a ReferenceSelect (by its input id): types its name, then clicks it; then waits
 * for the input to show it, unless the select adds picks elsewhere (`shows: false`).
 */
export async function pickReference(page: Page, inputId: string, name: string, { shows = true } = {}): Promise<void> {
  const input = page.locator(`#${inputId}`);
  await input.click();
  await input.fill(name);
  await page.getByRole('option', { name, exact: true }).click();
  if (!shows) return;
  await page.waitForFunction(([id, text]) => (document.getElementById(id) as HTMLInputElement | null)?.value === text, [inputId, name] as const);
}
