/**
 * Every island by name: the composition of the console's islands, beside `main.ts` and `app.ts`
 * (docs/architecture.md, "Layers"). The server renders an island inside a marker that carries
 * this name; the client bundle (`client.tsx`) looks the name up here to hydrate it. Add new
 * islands here.
 * @module
 */
import { Attention } from "./islands/Attention.tsx";
import { ConfigEditor } from "./islands/ConfigEditor.tsx";
import { DeliveryDays } from "./islands/DeliveryDays.tsx";
import { EventStream } from "./islands/EventStream.tsx";
import { KeyGate } from "./islands/KeyGate.tsx";
import { LearnedForecasts } from "./islands/LearnedForecasts.tsx";
import { OrchestratorPanel } from "./islands/OrchestratorPanel.tsx";
import { PassHistory } from "./islands/PassHistory.tsx";
import { SettlementMonth } from "./islands/SettlementMonth.tsx";

/** Island components by marker name. */
export const ISLANDS = {
  KeyGate,
  OrchestratorPanel,
  EventStream,
  ConfigEditor,
  DeliveryDays,
  PassHistory,
  Attention,
  SettlementMonth,
  LearnedForecasts,
} as const;

/** Name of an island. */
export type IslandName = keyof typeof ISLANDS;

/** Props of the island called `N`. */
export type IslandProps<N extends IslandName> = Parameters<(typeof ISLANDS)[N]> extends
  [infer P, ...unknown[]] ? P : Record<string, never>;
