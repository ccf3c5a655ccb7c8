/**
 * A small label: config sources (`runtime`, `env`, `default`), levels, stale markers.
 * @module
 */
import type { ComponentChildren } from "preact";

/** Colour family of a badge; each maps to a CSS class with light and dark variants. */
export type Tone = "neutral" | "info" | "ok" | "warn" | "error" | "accent";

/** A badge; `title` explains it on hover. */
export function Badge(
  { tone = "neutral", title, children }: {
    tone?: Tone;
    title?: string;
    children: ComponentChildren;
  },
) {
  return <span class={`badge badge-${tone}`} title={title}>{children}</span>;
}
