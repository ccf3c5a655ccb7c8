/**
 * The browser entry of the console (docs/architecture.md, "Console"), bundled by `deno task build` into
 * `static/build/client-<hash>.js`: reads the props data block, hydrates every island marker
 * with Preact, then starts the session (stored key, clock, live feed). Sets
 * `<html data-ready="true">` when done.
 * @module
 */
import { hydrate } from "preact";
import { ISLAND_DATA_ID } from "./lib/console/island.tsx";
import { type IslandName, ISLANDS } from "./islands.ts";
import { startSession } from "./lib/console/session.ts";

const block = document.getElementById(ISLAND_DATA_ID);
const props = JSON.parse(block?.textContent || "[]") as unknown[];
for (const el of document.querySelectorAll<HTMLElement>("[data-island]")) {
  const name = el.dataset.island as IslandName;
  const Component = ISLANDS[name] as ((p: unknown) => preact.JSX.Element) | undefined;
  if (!Component) {
    console.warn(`console: no island named ${name}`);
    continue;
  }
  hydrate(<Component {...(props[Number(el.dataset.islandId)] as object)} />, el);
}
startSession();
document.documentElement.dataset.ready = "true";
