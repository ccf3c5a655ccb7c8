/**
 * What a route module receives: the app's services and the route table it registers on. The
 * domain below (pipeline, orchestrator) receives only the part of {@link ServiceContext} it
 * uses (`StepServices`, `OrchestratorServices`), which knows no HTTP (docs/architecture.md,
 * "Layers").
 * @module
 */
import type { ServiceContext } from "../context.ts";
import type { Orchestrator } from "../orchestrator/orchestrator.ts";
import type { RouteTable } from "./route_table.ts";

/** The services of one app and its route table. */
export interface RouteContext extends ServiceContext {
  /** Where routes are declared (path, access, schemas) and registered. */
  routes: RouteTable;
  /** The app's orchestrator (manual passes go through its guard). */
  orchestrator: Orchestrator;
}
