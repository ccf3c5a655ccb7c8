/**
 * axe-core in a real page (the console's browser tests): the WCAG 2.1 A and AA violations it
 * finds, one line each (rule, impact, help, the offending nodes).
 * @module
 */
import axe from "axe-core";
import type { Page } from "playwright-core";

/**
 * The WCAG 2.1 A and AA violations axe-core finds in the page, one line each.
 * @param within a CSS selector: only that part of the page (default: the whole document)
 */
export async function axeViolations(page: Page, within?: string): Promise<string[]> {
  await page.evaluate(axe.source);
  return await page.evaluate(async (sel) => {
    // deno-lint-ignore no-explicit-any
    const a = (globalThis as any).axe;
    const r = await a.run(sel ?? document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    // deno-lint-ignore no-explicit-any
    return r.violations.map((v: any) =>
      // deno-lint-ignore no-explicit-any
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`
    );
  }, within);
}
