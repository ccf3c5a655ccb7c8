/**
 * The server half of the islands mechanism (docs/architecture.md, "Console"), after Fresh: {@link Island} renders a
 * component inside `<div data-island="Name" data-island-id="n">` and records its props;
 * {@link IslandData} then writes every island's props into one
 * `<script type="application/json" id="island-props">` data block. A data block is never
 * executed, so the CSP (`script-src 'self'`) allows it; {@link serializeProps} escapes `<`, `>`
 * and `&` so no prop value can close the block.
 *
 * @example
 * const islands = new IslandCollector();
 * renderToString(<body><Island collector={islands} name="KeyGate" props={{}} /><IslandData collector={islands} /></body>);
 * @module
 */

/** Id of the props data block. */
export const ISLAND_DATA_ID = "island-props";

/** The props of every island rendered into one page, in marker-id order. */
export class IslandCollector {
  /** Props by marker id. */
  readonly props: unknown[] = [];
  /** Records `props`; returns the marker id. */
  add(props: unknown): number {
    this.props.push(props);
    return this.props.length - 1;
  }
}

/**
 * JSON that is safe inside an HTML `<script>` data block: `<`, `>`, `&`, U+2028 and U+2029 are
 * written as `\uXXXX` escapes, which `JSON.parse` reads back unchanged.
 */
export function serializeProps(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Renders `component` with `props` inside the marker of island `name` (the name the client
 * bundle looks up in its registry, `islands.ts`).
 */
export function Island<P extends object>(
  { collector, name, component, props }: {
    collector: IslandCollector;
    name: string;
    component: (p: P) => preact.JSX.Element;
    props: P;
  },
) {
  const Component = component as (p: object) => preact.JSX.Element;
  const id = collector.add(props);
  return (
    <div class="island" data-island={name} data-island-id={String(id)}>
      <Component {...(props as object)} />
    </div>
  );
}

/** The props data block; render it after every {@link Island} of the page. */
export function IslandData({ collector }: { collector: IslandCollector }) {
  return (
    <script
      type="application/json"
      id={ISLAND_DATA_ID}
      dangerouslySetInnerHTML={{ __html: serializeProps(collector.props) }}
    />
  );
}
