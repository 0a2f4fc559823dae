/** The part of jstat 1.9.6 (no bundled types) that ludus uses. */
declare module 'jstat' {
  interface StudentT {
    /** P(T <= x) for Student's t with `dof` degrees of freedom. */
    cdf(x: number, dof: number): number;
  }
  /** Regularized incomplete beta I_x(a, b). */
  type Ibeta = (x: number, a: number, b: number) => number;
  const jstat: { jStat: { studentt: StudentT; ibeta: Ibeta } };
  export default jstat;
}
