import { fail } from '../errors.ts';

/** Entrants' Bradley–Terry strengths on the log-odds scale, centred (they sum to zero), with their standard errors. */
export interface BradleyTerryFit {
  /** θ_i: P(i beats j) = σ(θ_i − θ_j). */
  readonly theta: readonly number[];
  /** √Var(θ_i) under the sum-to-zero constraint, from the observed information at the fit. */
  readonly se: readonly number[];
  readonly covariance: readonly (readonly number[])[];
  readonly iterations: number;
}

export interface BradleyTerryOptions {
  /**
   * λ of a ridge penalty λ/2·Σθ² (a N(0, 1/λ) prior on each strength), so an entrant that won every game it played, or
   * a comparison graph in pieces, still has a finite fit. 0 gives the plain maximum-likelihood estimate.
   */
  readonly ridge?: number;
  readonly tolerance?: number;
  readonly maxIterations?: number;
}

/**
 * A batch Bradley–Terry fit over a whole payoff table, so the result does not depend on the order the games were
 * played in (sequential ratings do). `wins[i][j]` is how often i beat j; draws count half to each side, and weights
 * may make counts fractional. Newton–Raphson with backtracking on the (strictly concave, for a connected table or
 * λ > 0) penalized log-likelihood, from θ = 0.
 */
export function fitBradleyTerry(wins: readonly (readonly number[])[], options: BradleyTerryOptions = {}): BradleyTerryFit {
  const n = wins.length;
  const ridge = options.ridge ?? 0;
  const tolerance = options.tolerance ?? 1e-10;
  const maxIterations = options.maxIterations ?? 200;
  for (const [i, row] of wins.entries()) {
    if (row.length !== n) fail('DATA_INVALID', `Bradley–Terry: payoff row ${i} has ${row.length} entries, expected ${n}`, { row: i });
    for (const [j, w] of row.entries()) if (!(Number.isFinite(w) && w >= 0)) fail('DATA_INVALID', `Bradley–Terry: wins[${i}][${j}] = ${w} is not a count ≥ 0`, { row: i, column: j });
  }
  if (!(Number.isFinite(ridge) && ridge >= 0)) fail('DATA_INVALID', `Bradley–Terry: ridge must be ≥ 0, got ${ridge}`);
  if (n === 0) return { theta: [], se: [], covariance: [], iterations: 0 };

  let theta = new Array<number>(n).fill(0);
  let objective = logLikelihood(wins, theta, ridge);
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const { gradient, information } = derivatives(wins, theta, ridge);
    if (Math.max(...gradient.map(Math.abs)) < tolerance) break;
    const step = solve(centredInverse(information), gradient);
    let scale = 1;
    let next = theta.map((t, i) => t + step[i]);
    let nextObjective = logLikelihood(wins, next, ridge);
    while (nextObjective < objective && scale > 1e-8) {
      scale /= 2;
      next = theta.map((t, i) => t + scale * step[i]);
      nextObjective = logLikelihood(wins, next, ridge);
    }
    theta = next;
    objective = nextObjective;
  }
  const covariance = centredInverse(derivatives(wins, theta, ridge).information);
  return { theta, se: covariance.map((row, i) => Math.sqrt(Math.max(0, row[i]))), covariance, iterations };
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function logLikelihood(wins: readonly (readonly number[])[], theta: readonly number[], ridge: number): number {
  let total = 0;
  for (let i = 0; i < theta.length; i++) {
    for (let j = 0; j < theta.length; j++) {
      // log σ(d) = −log(1 + e^(−d)), written to stay finite for large |d|.
      const d = theta[i] - theta[j];
      if (i !== j && wins[i][j] > 0) total -= wins[i][j] * (d > 0 ? Math.log1p(Math.exp(-d)) : -d + Math.log1p(Math.exp(d)));
    }
  }
  return total - (ridge / 2) * theta.reduce((sum, t) => sum + t * t, 0);
}

/** The penalized log-likelihood's gradient and its negative Hessian (the observed information). */
function derivatives(wins: readonly (readonly number[])[], theta: readonly number[], ridge: number): { gradient: number[]; information: number[][] } {
  const n = theta.length;
  const gradient = theta.map((t) => -ridge * t);
  const information = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? ridge : 0)));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const games = wins[i][j] + wins[j][i];
      if (games === 0) continue;
      const p = sigmoid(theta[i] - theta[j]);
      gradient[i] += wins[i][j] - games * p;
      gradient[j] -= wins[i][j] - games * p;
      const curvature = games * p * (1 - p);
      information[i][i] += curvature;
      information[j][j] += curvature;
      information[i][j] -= curvature;
      information[j][i] -= curvature;
    }
  }
  return { gradient, information };
}

/**
 * The inverse of the information on the subspace Σθ = 0, where strengths are identified: (I + J/n)⁻¹ − J/n, J the
 * all-ones matrix (the Moore–Penrose inverse when the all-ones vector is I's null space, as for a connected table
 * without ridge).
 */
function centredInverse(information: readonly (readonly number[])[]): number[][] {
  const n = information.length;
  const shifted = information.map((row) => row.map((v) => v + 1 / n));
  return invert(shifted).map((row) => row.map((v) => v - 1 / n));
}

function invert(matrix: readonly (readonly number[])[]): number[][] {
  const n = matrix.length;
  const a = matrix.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row][col]) > Math.abs(a[pivot][col])) pivot = row;
    if (Math.abs(a[pivot][col]) < 1e-12) {
      fail('DATA_INVALID', 'Bradley–Terry: the payoff table does not connect every entrant (some groups never met); set a ridge > 0 to fit it', {});
    }
    [a[col], a[pivot]] = [a[pivot], a[col]];
    const lead = a[col][col];
    for (let k = 0; k < 2 * n; k++) a[col][k] /= lead;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = a[row][col];
      if (factor !== 0) for (let k = 0; k < 2 * n; k++) a[row][k] -= factor * a[col][k];
    }
  }
  return a.map((row) => row.slice(n));
}

function solve(inverse: readonly (readonly number[])[], vector: readonly number[]): number[] {
  return inverse.map((row) => row.reduce((sum, v, j) => sum + v * vector[j], 0));
}
