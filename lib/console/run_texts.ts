/**
 * What the manual actions of the delivery-day overview answered, in words (docs/console.md,
 * "Delivery days"): a manual pass ("2026-11-25: aggregate, publish, submit · …", "nothing to do")
 * and "Import answers" (per file), each counting the answer files moved to `rejected/` ("1 file
 * rejected: …", "nothing new in the inbox · 1 file rejected earlier: …, see Attention."). Pure.
 * @module
 */

/** What `POST /v1/orchestrate` answers: per day, the steps run and the one that failed. */
export interface PassReportBody {
  days: { delivery_day: string; ran: string[]; failed?: { step: string; error: string } }[];
  /** Answer files the pass's inbox import moved to `rejected/`. */
  rejected_files?: { file: string; reason: string }[];
}

/** "1 file rejected: a.xml (not a TSO answer)", or "" for none. */
export function rejectedText(files: readonly { file: string; reason: string }[]): string {
  if (!files.length) return "";
  const n = files.length;
  return `${n} file${n === 1 ? "" : "s"} rejected: ${
    files.map((f) => `${f.file} (${f.reason.replace(/[.\s]+$/, "")})`).join(", ")
  }`;
}

/**
 * What a manual pass did, in words: per day the steps it ran and a failure with its reason
 * ("2026-11-25: aggregate, publish, submit · 2026-11-26: publish failed: …"), or that there
 * was nothing to do; and the answer files its import rejected ("1 file rejected: …").
 */
export function passSummary(label: string, report: PassReportBody): { ok: boolean; text: string } {
  const rejected = rejectedText(report.rejected_files ?? []);
  const tail = rejected ? ` · ${rejected}, see Attention.` : "";
  if (!report.days.length) {
    return rejected
      ? { ok: false, text: `${label}: no step to run${tail}` }
      : { ok: true, text: `${label}: nothing to do, every day is up to date.` };
  }
  const parts = report.days.map((d) => {
    const ran = d.ran.length ? d.ran.join(", ") : "";
    const failed = d.failed ? `${d.failed.step} failed: ${d.failed.error}` : "";
    return `${d.delivery_day}: ${[ran, failed].filter(Boolean).join("; ")}`;
  });
  return {
    ok: report.days.every((d) => !d.failed) && !rejected,
    text: `${label}: ${parts.join(" · ")}${tail}`,
  };
}

/** What `POST /v1/schedule-responses/import` answers: one entry per inbox file. */
export interface ImportBody {
  files: {
    file: string;
    outcome: "imported" | "rejected" | "skipped" | "failed";
    delivery_day?: string;
    control_area?: string;
    tso_status?: string;
    reason?: string;
  }[];
  /** Files rejected (now or earlier) that wait for the operator's acknowledgement. */
  rejected_waiting?: { file: string; reason: string }[];
}

/**
 * The import's answer per file, in words: "a_ACK.xml: acknowledged (2026-11-25, 10YDE-…) ·
 * junk.xml: rejected: not a TSO answer", or that the inbox was empty; files rejected earlier that
 * wait for the operator are counted ("nothing new in the inbox · 1 file rejected: …").
 */
export function importSummary(body: ImportBody): { ok: boolean; text: string } {
  const now = new Set(body.files.map((f) => f.file));
  const earlier = (body.rejected_waiting ?? []).filter((r) => !now.has(r.file));
  const waiting = earlier.length
    ? ` · ${rejectedText(earlier).replace(" rejected:", " rejected earlier:")}, see Attention.`
    : "";
  if (!body.files.length) {
    return earlier.length
      ? { ok: false, text: `Import answers: nothing new in the inbox${waiting}` }
      : { ok: true, text: "Import answers: the inbox is empty." };
  }
  const parts = body.files.map((f) =>
    f.outcome === "imported"
      ? `${f.file}: ${f.tso_status ?? "imported"} (${f.delivery_day}, ${f.control_area})`
      : `${f.file}: ${f.outcome}${f.reason ? `: ${f.reason}` : ""}`
  );
  return {
    ok: !earlier.length &&
      body.files.every((f) => f.outcome === "imported" || f.outcome === "skipped"),
    text: `Import answers: ${parts.join(" · ")}${waiting}`,
  };
}
