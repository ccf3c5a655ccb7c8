/**
 * Island: asks for the process API key once and keeps it in `localStorage` (docs/architecture.md, "Console"),
 * offers "Forget key", and says plainly why the service refuses (401, 403, 503 fail-closed).
 * After a key is entered the focus goes to what needs attention (taken) or back to the key field
 * (refused).
 * @module
 */
import { useSignal, useSignalEffect } from "@preact/signals";
import {
  apiKey,
  type AuthProblem,
  authProblem,
  forgetKey,
  setKey,
  status,
} from "../lib/console/session.ts";

/** The operator-facing sentence for a refusal; `detail` is the service's own words. */
export function describeProblem(p: AuthProblem): string {
  if (p.status === 401) {
    return `The service refused this key (401): ${p.detail} Enter the process key again or forget it.`;
  }
  if (p.status === 403) {
    return `This key may not use the console (403): ${p.detail} The console needs a process key.`;
  }
  if (p.status === 503) {
    return `The service refuses every request because authentication is not configured (503, fail-closed): ${p.detail}`;
  }
  return `The service refused the request (${p.status}): ${p.detail}`;
}

/** The key gate. */
export function KeyGate() {
  const draft = useSignal("");
  // After a key is entered: once the service took it (the status arrived), focus goes to what
  // needs attention; when it refused it, back to the key field (never to the page's body).
  const entered = useSignal(false);
  useSignalEffect(() => {
    if (!entered.value) return;
    if (authProblem.value) {
      entered.value = false;
      requestAnimationFrame(() => document.getElementById("process-key")?.focus());
    } else if (status.value) {
      entered.value = false;
      requestAnimationFrame(() => document.getElementById("attention")?.focus());
    }
  });
  const key = apiKey.value;
  const problem = authProblem.value;
  const askForKey = !key || problem?.status === 401 || problem?.status === 403;
  return (
    <div class="keygate">
      {askForKey && (
        <form
          class="keygate-form"
          aria-label="Process API key"
          onSubmit={(e) => {
            e.preventDefault();
            setKey(draft.value);
            draft.value = "";
            entered.value = true;
          }}
        >
          <label for="process-key">{key ? "Replace key" : "Process API key"}</label>
          <input
            id="process-key"
            name="process-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            placeholder="X-API-Key of a process caller"
            value={draft.value}
            onInput={(e) => draft.value = e.currentTarget.value}
          />
          <button type="submit" class="btn btn-primary">Use key</button>
        </form>
      )}
      {key && (
        <span class="keygate-set">
          {!askForKey && <span class="muted">Key kept in this browser</span>}
          <button type="button" class="btn btn-small" onClick={forgetKey}>Forget key</button>
        </span>
      )}
      {problem && (
        <p class="banner banner-error" role="alert">
          {describeProblem(problem)}
        </p>
      )}
    </div>
  );
}
