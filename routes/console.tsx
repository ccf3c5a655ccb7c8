/**
 * `/console` and its static files (SPEC §1, §5.7; DESIGN §7). Filled in by the console issue.
 * @module
 */
import type { ServiceContext } from "../lib/context.ts";

/** Registers the console page and the static files it needs. */
export function registerConsole(_ctx: ServiceContext): void {
}
