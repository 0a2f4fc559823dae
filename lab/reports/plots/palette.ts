/** Colour-blind-safe (Okabe–Ito) series colours, assigned in order. */
const SERIES_COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#F0E442', '#000000'] as const;

export const seriesColor = (index: number): string => SERIES_COLORS[index % SERIES_COLORS.length];
