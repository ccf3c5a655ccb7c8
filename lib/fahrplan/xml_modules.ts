/**
 * The Fahrplan modules that write and read XML with npm:fast-xml-parser (`./render_memo.ts` with
 * `./render.ts`: schedule documents, ESS and CIM; `./answers.ts`: the TSOs' ACK, CNF and ANO),
 * imported at the first document rendered or answer read instead of when the service starts: the
 * parser and its entity tables cost ~10-20 ms in every process, and one that never submits a
 * schedule or reads an inbox (a replica that only answers, most test processes) need not pay it.
 *
 * The first call of a process waits for the import once; later calls get the loaded module.
 * Callers load it before a `try` that words a document's own faults, so that a failed import is
 * not reported as a bad document.
 * @module
 */

let render: Promise<typeof import("./render.ts")> | undefined;
let memo: Promise<typeof import("./render_memo.ts")> | undefined;
let answers: Promise<typeof import("./answers.ts")> | undefined;

/** `./render.ts` (`renderSchedule`), imported once. */
export function renderModule(): Promise<typeof import("./render.ts")> {
  return render ??= import("./render.ts");
}

/** `./render_memo.ts` (`renderScheduleMemo`), imported once. */
export function renderMemoModule(): Promise<typeof import("./render_memo.ts")> {
  return memo ??= import("./render_memo.ts");
}

/** `./answers.ts` (`parseAnswer`), imported once. */
export function answersModule(): Promise<typeof import("./answers.ts")> {
  return answers ??= import("./answers.ts");
}
