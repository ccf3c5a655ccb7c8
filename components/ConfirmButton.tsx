/**
 * A button that asks before it acts: the first press shows the question in words and two
 * buttons, the confirming one named after the consequence. Keyboard: the confirming button
 * takes focus; Escape cancels; after confirming, the focus goes back to the button (or the one of
 * the same `name` that replaced it).
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";

/** Props of {@link ConfirmButton}. */
export interface ConfirmButtonProps {
  /** Label of the first button, e.g. "Stop scheduled runs…". */
  label: string;
  /** The question, stating the consequence. */
  question: string;
  /** Label of the confirming button, e.g. "Yes, stop scheduled runs". */
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
  /** Style the confirmation as dangerous. */
  danger?: boolean;
  /** Extra class on the first button. */
  class?: string;
  /** Accessible name of the first button when the label alone is ambiguous. */
  ariaLabel?: string;
  /**
   * Names the button across states (`data-confirm`): after confirming, the focus goes to the
   * button of that name that stands there then (e.g. "Stop" after "Start"), never to the body.
   */
  name?: string;
}

/**
 * Focuses the enabled button named `name` (`data-confirm`), or `fallback`, once it is drawn and
 * enabled (within about half a second of frames).
 */
function refocus(name: string | undefined, fallback: HTMLElement | null, frames = 30): void {
  requestAnimationFrame(() => {
    const named = name
      ? document.querySelector<HTMLButtonElement>(`button[data-confirm="${name}"]`)
      : null;
    const target = named ?? (fallback?.isConnected ? fallback : null);
    if (target && !(target as HTMLButtonElement).disabled) return target.focus();
    if (frames > 0) refocus(name, fallback, frames - 1);
  });
}

/** A two-step button. */
export function ConfirmButton(p: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  const close = () => {
    setAsking(false);
    queueMicrotask(() => first.current?.focus());
  };
  if (!asking) {
    return (
      <button
        type="button"
        ref={first}
        class={p.class ?? "btn"}
        disabled={p.disabled}
        aria-label={p.ariaLabel}
        data-confirm={p.name}
        onClick={() => setAsking(true)}
      >
        {p.label}
      </button>
    );
  }
  return (
    <span
      class="confirm"
      role="group"
      aria-label={p.question}
      onKeyDown={(e) => {
        if (e.key === "Escape") close();
      }}
    >
      <span class="confirm-q">{p.question}</span>
      <button
        type="button"
        ref={yes}
        class={p.danger ? "btn btn-danger" : "btn btn-primary"}
        onClick={async () => {
          setAsking(false);
          try {
            await p.onConfirm();
          } finally {
            refocus(p.name, first.current);
          }
        }}
      >
        {p.confirmLabel}
      </button>
      <button type="button" class="btn" onClick={close}>Cancel</button>
    </span>
  );
}
