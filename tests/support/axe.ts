/**
 * axe-core in a real page (the console's browser tests): the WCAG 2.1 A and AA violations it
 * finds, one line each (rule, impact, help, the offending nodes).
 * @module
 */
import axe from "axe-core";
import type { Page } from "playwright-core";

/**
 * The WCAG 2.1 A and AA violations axe-core finds in the page, one line each.
 * @param within CSS selectors: only those parts of the page (default: the whole document). A
 *   settled day draws some 400 quarter-hour targets per chart, which take axe tens of seconds.
 */
export async function axeViolations(
  page: Page,
  within?: string | readonly string[],
): Promise<string[]> {
  await page.evaluate(axe.source);
  const parts = within === undefined ? null : typeof within === "string" ? [within] : [...within];
  return await page.evaluate(async (parts) => {
    // deno-lint-ignore no-explicit-any
    const a = (globalThis as any).axe;
    const r = await a.run(parts ? { include: parts.map((s) => [s]) } : document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    // deno-lint-ignore no-explicit-any
    return r.violations.map((v: any) =>
      // deno-lint-ignore no-explicit-any
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`
    );
  }, parts);
}
