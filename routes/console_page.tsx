/**
 * The `/console` document (docs/architecture.md, "Console"): server-rendered HTML with nine islands
 * (key gate, orchestrator with status pill, attention summary (docs/console.md), delivery days,
 * event stream, config editor, pass history, the month after delivery, the learned forecasts
 * (docs/console.md)), one
 * stylesheet, one module script and the islands' props as a JSON data block. No inline script,
 * no `style` attribute: the page works under {@link CONSOLE_CSP}. It holds no service data;
 * the islands fetch everything with the operator's key.
 * @module
 */
import { renderToString } from "preact-render-to-string";
import { ISLANDS } from "../islands.ts";
import { Island, IslandCollector, IslandData } from "../lib/console/island.tsx";
import type { FieldMeta } from "../lib/console/types.ts";

export { CONSOLE_CSP } from "./console_csp.ts";

/** What the page is rendered from. */
export interface ConsolePageInput {
  /** URL of the client bundle; `null` when it has not been built (the page says so). */
  script: string | null;
  /** URLs of the stylesheets. */
  stylesheets: string[];
  /** Config field metadata for the editor. */
  fields: FieldMeta[];
  /** Event kinds offered by the filter. */
  kinds: string[];
}

function ConsolePage(p: ConsolePageInput & { islands: IslandCollector }) {
  const c = p.islands;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>Scheduling bridge · console</title>
        <link rel="icon" type="image/svg+xml" href="/static/favicon.svg" />
        {p.stylesheets.map((href) => <link key={href} rel="stylesheet" href={href} />)}
        {p.script && <script type="module" src={p.script} />}
      </head>
      <body>
        {/* Skip links: the first stops of the keyboard, shown when focused. */}
        <a class="skip-link" href="#attention">Skip to what needs attention</a>
        <a class="skip-link" href="#days">Skip to the delivery days</a>
        <header class="topbar">
          <div class="brand">
            <span class="brand-name">Scheduling bridge</span>
            <span class="muted">operator console</span>
            <span class="muted zone-note" title="hover a time for your own zone and UTC">
              times: Europe/Berlin
            </span>
          </div>
          <nav class="sections" aria-label="Sections">
            <a href="#days">Delivery days</a>
            <a href="#events">Events</a>
            <a href="#config">Configuration</a>
            <a href="#passes">Passes</a>
            <a href="#settlement">After delivery</a>
            <a href="#learned">Learned</a>
          </nav>
          <Island collector={c} name="KeyGate" component={ISLANDS.KeyGate} props={{}} />
        </header>
        <div class="statusbar">
          <Island
            collector={c}
            name="OrchestratorPanel"
            component={ISLANDS.OrchestratorPanel}
            props={{}}
          />
        </div>
        {!p.script && (
          <p class="banner banner-error" role="alert">
            The console's script has not been built: run <code>deno task build</code> (done by{" "}
            <code>deno task start</code> and <code>deno task demo</code>).
          </p>
        )}
        <noscript>
          <p class="banner banner-error">The console needs JavaScript.</p>
        </noscript>
        <main>
          <section id="attention" class="attention-box" aria-label="Needs attention" tabIndex={-1}>
            <Island collector={c} name="Attention" component={ISLANDS.Attention} props={{}} />
          </section>
          <section id="days" class="panel" aria-labelledby="days-h" tabIndex={-1}>
            <h2 id="days-h">Delivery days</h2>
            <Island collector={c} name="DeliveryDays" component={ISLANDS.DeliveryDays} props={{}} />
          </section>
          <div class="cols">
            <section id="events" class="panel" aria-labelledby="events-h">
              <h2 id="events-h">Events</h2>
              <Island
                collector={c}
                name="EventStream"
                component={ISLANDS.EventStream}
                props={{ kinds: p.kinds }}
              />
            </section>
            <section id="config" class="panel" aria-labelledby="config-h">
              <h2 id="config-h">Configuration</h2>
              <Island
                collector={c}
                name="ConfigEditor"
                component={ISLANDS.ConfigEditor}
                props={{ fields: p.fields }}
              />
            </section>
          </div>
          <section id="passes" class="panel" aria-labelledby="passes-h">
            <h2 id="passes-h">Passes</h2>
            <Island collector={c} name="PassHistory" component={ISLANDS.PassHistory} props={{}} />
          </section>
          <section id="settlement" class="panel" aria-labelledby="settlement-h">
            <h2 id="settlement-h">After delivery</h2>
            <Island
              collector={c}
              name="SettlementMonth"
              component={ISLANDS.SettlementMonth}
              props={{}}
            />
          </section>
          <section id="learned" class="panel" aria-labelledby="learned-h">
            <h2 id="learned-h">Learned forecasts</h2>
            <Island
              collector={c}
              name="LearnedForecasts"
              component={ISLANDS.LearnedForecasts}
              props={{}}
            />
          </section>
        </main>
        <IslandData collector={c} />
      </body>
    </html>
  );
}

/** Renders the whole document, `<!doctype html>` included. */
export function renderConsolePage(input: ConsolePageInput): string {
  const islands = new IslandCollector();
  return `<!doctype html>${renderToString(<ConsolePage {...input} islands={islands} />)}`;
}
