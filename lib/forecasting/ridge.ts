/**
 * Weighted ridge regression (Hoerl & Kennard 1970; the linear family OpenSTEF's GBLinear belongs
 * to): minimises Σ wᵣ (yᵣ − b − Σⱼ βⱼ xᵣⱼ)² + α · W · Σⱼ (βⱼ sⱼ)², W = Σ wᵣ, on columns scaled to unit
 * weighted standard deviation sⱼ, the intercept b unpenalised (docs/forecasting.md, "Fit"). The
 * normal equations are summed here in one pass over the rows; the solve is ml-matrix's Cholesky
 * decomposition (the system is symmetric positive definite for α > 0).
 * @module
 */
import { CholeskyDecomposition, Matrix } from "ml-matrix";

/** A fitted linear model in the columns' own units. */
export interface RidgeFit {
  intercept: number;
  /** One per column; 0 for a column that did not vary in the fit. */
  coefficients: number[];
  /** Weighted mean absolute error of the fit on its own rows (in-sample), in y's unit. */
  inSampleMae: number;
  /** Rows fitted. */
  rows: number;
}

/**
 * Fits `y ≈ intercept + x · coefficients`.
 * @param x row-major, `y.length × p`
 * @param y targets; rows with `use[r] = 0` are skipped
 * @param weights one per row (> 0)
 * @param alpha ridge strength on standardised columns (e.g. 0.01)
 * @throws {RangeError} when no row is usable
 */
export function fitRidge(
  x: Float64Array,
  y: Float64Array,
  use: Uint8Array,
  weights: Float64Array,
  p: number,
  alpha: number,
): RidgeFit {
  const rowsN = y.length;
  // One pass over the rows: weighted sums of the values and of their products (upper triangle),
  // y as column p. Each column is first shifted by its value in the first usable row: the sums
  // are shift-invariant once centred below, and a constant column stays exactly constant. Rows
  // go four at a time, so each product sum is loaded and stored once per four rows (the hot loop
  // of a fit); an unused row is all zeros with weight 0.
  const q = p + 1;
  const shift = new Float64Array(q);
  let r0 = 0;
  while (r0 < rowsN && !use[r0]) r0++;
  if (r0 === rowsN) throw new RangeError("no usable row to fit");
  for (let j = 0; j < p; j++) shift[j] = x[r0 * p + j];
  shift[p] = y[r0];
  const m = new Float64Array(q);
  const s = new Float64Array(q * q);
  const v = [new Float64Array(q), new Float64Array(q), new Float64Array(q), new Float64Array(q)];
  const wt = new Float64Array(4);
  const [v0, v1, v2, v3] = v;
  let sw = 0, rows = 0;
  for (let r = r0; r < rowsN; r += 4) {
    for (let k = 0; k < 4; k++) {
      const rk = r + k, vk = v[k];
      if (rk < rowsN && use[rk]) {
        const base = rk * p;
        for (let j = 0; j < p; j++) vk[j] = x[base + j] - shift[j];
        vk[p] = y[rk] - shift[p];
        wt[k] = weights[rk];
        sw += wt[k];
        rows++;
      } else {
        vk.fill(0);
        wt[k] = 0;
      }
    }
    const w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[3];
    for (let a = 0; a < q; a++) {
      const a0 = w0 * v0[a], a1 = w1 * v1[a], a2 = w2 * v2[a], a3 = w3 * v3[a];
      m[a] += a0 + a1 + a2 + a3;
      const row = a * q;
      for (let b = a; b < q; b++) s[row + b] += a0 * v0[b] + a1 * v1[b] + a2 * v2[b] + a3 * v3[b];
    }
  }
  // Centred weighted cross products of the columns (g) and with y (gy), and the means.
  const g = new Float64Array(p * p);
  const gy = new Float64Array(p);
  const mean = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    mean[j] = shift[j] + m[j] / sw;
    gy[j] = s[j * q + p] - m[j] * m[p] / sw;
    for (let l = j; l < p; l++) g[j * p + l] = s[j * q + l] - m[j] * m[l] / sw;
  }
  const my = shift[p] + m[p] / sw;
  const sd = new Float64Array(p);
  for (let j = 0; j < p; j++) sd[j] = Math.sqrt(Math.max(0, g[j * p + j]) / sw);
  const live = [...sd.keys()].filter((j) => sd[j] > 1e-12 * (1 + Math.abs(mean[j])));
  const coefficients = new Array<number>(p).fill(0);
  if (live.length > 0) {
    // Standardised system: (Zᵀ W Z + α W I) γ = Zᵀ W y, then β = γ / s.
    const { a, b } = system(live.length);
    live.forEach((j, u) => {
      b.set(u, 0, gy[j] / sd[j]);
      live.forEach((l, v) => {
        const gl = j <= l ? g[j * p + l] : g[l * p + j];
        a.set(u, v, gl / (sd[j] * sd[l]) + (u === v ? alpha * sw : 0));
      });
    });
    const gamma = new CholeskyDecomposition(a).solve(b);
    live.forEach((j, u) => coefficients[j] = gamma.get(u, 0) / sd[j]);
  }
  let intercept = my;
  for (let j = 0; j < p; j++) intercept -= coefficients[j] * mean[j];
  let err = 0;
  for (let r = 0; r < rowsN; r++) {
    if (use[r]) err += weights[r] * Math.abs(y[r] - predictRow(x, r, p, intercept, coefficients));
  }
  return { intercept, coefficients, inSampleMae: err / sw, rows };
}

/**
 * The standardised system's matrices by size, kept between fits (every entry is set by each; the
 * decomposition copies what it keeps): a refit of 10,000 locations makes 30,000 solves.
 */
const systems = new Map<number, { a: Matrix; b: Matrix }>();
function system(n: number): { a: Matrix; b: Matrix } {
  let m = systems.get(n);
  if (!m) systems.set(n, m = { a: new Matrix(n, n), b: new Matrix(n, 1) });
  return m;
}

/** The fitted value of row `r` of a row-major matrix. */
export function predictRow(
  x: Float64Array,
  r: number,
  p: number,
  intercept: number,
  coefficients: readonly number[],
): number {
  let s = intercept;
  for (let j = 0; j < p; j++) s += coefficients[j] * x[r * p + j];
  return s;
}
