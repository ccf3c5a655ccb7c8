/**
 * The served OpenAPI document as a validator of real answers (docs/api.md, "The document"):
 * Ajv (draft 2020-12, with ajv-formats) compiles the document's schemas where they are, `$ref`s
 * resolved against the document itself, and {@link Contract.check} says everything an answer does
 * that its operation does not declare: an undeclared status, a media type or body the schema
 * refuses, a missing required header, a header the service sends but the document does not name.
 * @module
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";

/** ajv-formats is CommonJS: its default export is the plugin function itself. */
const addFormats = formatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

/** An answer as it came over the wire. */
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

type Media = { schema?: Record<string, unknown> };
type HeaderObject = { required?: boolean; schema?: Record<string, unknown> };
type ResponseObject = {
  content?: Record<string, Media>;
  headers?: Record<string, HeaderObject>;
};
type Operation = { responses: Record<string, ResponseObject> };
/** The part of the document the checks read. */
export type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
  "x-unrouted-responses": Record<string, ResponseObject>;
};

/** Headers the service sends on purpose: each must be declared where it is sent. */
const WATCHED = ["www-authenticate", "retry-after", "allow", "content-disposition", "x-request-id"];

const BASE = "https://scheduling-bridge.invalid/openapi.json";
/** A JSON pointer segment (RFC 6901) as a URI fragment part. */
const seg = (s: string) => encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1"));

/** The document and its compiled schemas. */
export class Contract {
  readonly doc: Document;
  readonly #ajv: Ajv2020;
  readonly #headerChecks = new Map<string, ValidateFunction>();

  constructor(doc: Document) {
    this.doc = doc;
    this.#ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(this.#ajv);
    // The document's own fields are no JSON Schema keywords; its schemas are looked up inside it.
    this.#ajv.addVocabulary([
      "openapi",
      "info",
      "servers",
      "paths",
      "components",
      "security",
      "tags",
      "x-unrouted-responses",
    ]);
    this.#ajv.addSchema(doc, BASE);
  }

  /** Compiles every schema of `components.schemas`; the names that do not compile, with why. */
  compileComponents(): string[] {
    const failed: string[] = [];
    for (const name of Object.keys(this.doc.components.schemas)) {
      try {
        this.#ajv.getSchema(`${BASE}#/components/schemas/${seg(name)}`);
      } catch (err) {
        failed.push(`${name}: ${(err as Error).message}`);
      }
    }
    return failed;
  }

  /**
   * What `answer` does that the operation `method path` (a declared path) does not declare; empty
   * when it matches. A 405 is checked against `x-unrouted-responses`.
   */
  check(method: string, path: string, answer: Answer): string[] {
    const where = `${method.toUpperCase()} ${path} → ${answer.status}`;
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    let declared: ResponseObject | undefined;
    let pointer: string;
    if (answer.status === 405) {
      declared = this.doc["x-unrouted-responses"]["405"];
      pointer = "/x-unrouted-responses/405";
    } else {
      if (!op) return [`${where}: no such operation in the document`];
      declared = op.responses[String(answer.status)];
      pointer = `/paths/${seg(path)}/${seg(method.toLowerCase())}/responses/${answer.status}`;
    }
    if (!declared) return [`${where}: status not declared`];
    const problems: string[] = [];
    problems.push(...this.#checkBody(where, pointer, declared, answer));
    problems.push(...this.#checkHeaders(where, declared, answer.headers));
    return problems;
  }

  #checkBody(where: string, pointer: string, declared: ResponseObject, answer: Answer): string[] {
    const content = declared.content ?? {};
    if (Object.keys(content).length === 0) {
      return answer.body === "" ? [] : [`${where}: a body the document does not declare`];
    }
    const type = (answer.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    const media = Object.keys(content).find((m) => m.split(";")[0].trim().toLowerCase() === type);
    if (!media) {
      return [`${where}: content-type ${type} not among ${Object.keys(content).join(", ")}`];
    }
    if (!content[media].schema) return [];
    const validate = this.#ajv.getSchema(`${BASE}#${pointer}/content/${seg(media)}/schema`)!;
    let value: unknown = answer.body;
    if (type === "application/json") {
      try {
        value = JSON.parse(answer.body);
      } catch {
        return [`${where}: body is not JSON`];
      }
    }
    if (validate(value)) return [];
    return [`${where}: body does not match: ${this.#ajv.errorsText(validate.errors)}`];
  }

  #checkHeaders(where: string, declared: ResponseObject, headers: Headers): string[] {
    const problems: string[] = [];
    const named = new Map(
      Object.entries(declared.headers ?? {}).map(([k, h]) => [k.toLowerCase(), h]),
    );
    for (const [name, h] of named) {
      const value = headers.get(name);
      if (value === null) {
        if (h.required) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      const key = JSON.stringify(h.schema ?? {});
      let check = this.#headerChecks.get(key);
      if (!check) {
        check = this.#ajv.compile(h.schema ?? {});
        this.#headerChecks.set(key, check);
      }
      if (!check(value)) problems.push(`${where}: header ${name}: ${value} does not match`);
    }
    for (const name of WATCHED) {
      if (headers.has(name) && !named.has(name)) {
        problems.push(`${where}: header ${name} sent but not declared`);
      }
    }
    return problems;
  }
}

/**
 * Sends a request over a plain socket (for a `Content-Length` that `fetch` would not send) and
 * reads the answer's head and its `Content-Length` body (the server may keep waiting for the
 * request body it was promised, so the socket is not read to its end).
 */
export async function rawAnswer(url: string, head: string): Promise<Answer> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  let text = "";
  try {
    await conn.write(new TextEncoder().encode(head));
    const buf = new Uint8Array(65536);
    const decoder = new TextDecoder();
    for (;;) {
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? 0);
      if (end >= 0 && text.length - end - 4 >= length) break;
      const n = await conn.read(buf);
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
    }
  } finally {
    conn.close();
  }
  const [headText, body = ""] = text.split("\r\n\r\n", 2);
  const [statusLine, ...lines] = headText.split("\r\n");
  const headers = new Headers();
  for (const l of lines) {
    const i = l.indexOf(":");
    headers.append(l.slice(0, i).trim(), l.slice(i + 1).trim());
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}
