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
  let sw = 0, rows = 0;
  const mean = new Float64Array(p);
  let my = 0;
  for (let r = 0; r < rowsN; r++) {
    if (!use[r]) continue;
    const w = weights[r];
    sw += w;
    rows++;
    my += w * y[r];
    for (let j = 0; j < p; j++) mean[j] += w * x[r * p + j];
  }
  if (rows === 0) throw new RangeError("no usable row to fit");
  my /= sw;
  for (let j = 0; j < p; j++) mean[j] /= sw;
  // Centred weighted cross products.
  const g = new Float64Array(p * p);
  const gy = new Float64Array(p);
  const c = new Float64Array(p);
  for (let r = 0; r < rowsN; r++) {
    if (!use[r]) continue;
    const w = weights[r];
    const base = r * p;
    for (let j = 0; j < p; j++) c[j] = x[base + j] - mean[j];
    const yc = y[r] - my;
    // The upper triangle, row by row (the hot loop of a fit: p(p+1)/2 products per row).
    for (let j = 0, gj = 0; j < p; j++, gj += p) {
      const wc = w * c[j];
      gy[j] += wc * yc;
      for (let l = j; l < p; l++) g[gj + l] += wc * c[l];
    }
  }
  const sd = new Float64Array(p);
  for (let j = 0; j < p; j++) sd[j] = Math.sqrt(g[j * p + j] / sw);
  const live = [...sd.keys()].filter((j) => sd[j] > 1e-12 * (1 + Math.abs(mean[j])));
  const coefficients = new Array<number>(p).fill(0);
  if (live.length > 0) {
    // Standardised system: (Zᵀ W Z + α W I) γ = Zᵀ W y, then β = γ / s.
    const a = new Matrix(live.length, live.length);
    const b = new Matrix(live.length, 1);
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
