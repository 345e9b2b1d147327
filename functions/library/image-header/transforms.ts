/**
 * HEIF's transformative properties (clap crop, irot quarter turns anti-clockwise, imir mirror) expressed as
 * the EXIF orientation that displays the coded image the same way. The eight orientations are the symmetries
 * of a rectangle; composing them by hand invites sign errors, so the transforms are applied to a small grid
 * of distinct labels and the result is matched against the grid each EXIF orientation produces.
 */
export type Transform = { irot: number } | { imir: number } | { clap: [number, number] };

type Grid = number[][];
const rotateClockwise = (grid: Grid): Grid =>
  (grid[0] ?? []).map((_, column) => grid.map((row) => row[column] as number).reverse());
const rotateAnticlockwise = (grid: Grid): Grid => rotateClockwise(rotateClockwise(rotateClockwise(grid)));
const flipLeftRight = (grid: Grid): Grid => grid.map((row) => [...row].reverse());
const flipTopBottom = (grid: Grid): Grid => [...grid].reverse();

/** What each EXIF orientation does to the stored image to display it (TIFF 6.0 / EXIF 2.3 Orientation). */
const EXIF_ORIENTATIONS: readonly ((grid: Grid) => Grid)[] = [
  (grid) => grid,
  flipLeftRight,
  (grid) => rotateClockwise(rotateClockwise(grid)),
  flipTopBottom,
  (grid) => flipLeftRight(rotateClockwise(grid)), // 5: transpose
  rotateClockwise,
  (grid) => flipTopBottom(rotateClockwise(grid)), // 7: transverse
  rotateAnticlockwise,
];

/** A 2 x 3 grid of distinct labels: each of the eight orientations turns it into a different grid. */
const LABELS: Grid = [
  [0, 1, 2],
  [3, 4, 5],
];
const key = (grid: Grid) => JSON.stringify(grid);
const ORIENTATION_BY_GRID = new Map(EXIF_ORIENTATIONS.map((orient, index) => [key(orient(LABELS)), index + 1]));

/**
 * Applies the transforms in order to an image coded `width` x `height`: the EXIF orientation they amount to,
 * and the stored size (after any crop) that, turned by that orientation, is the displayed size.
 */
export function orientationOf(
  width: number,
  height: number,
  transforms: readonly Transform[],
): { width: number; height: number; orientation: number } {
  let grid = LABELS;
  let size: [number, number] = [width, height];
  for (const transform of transforms) {
    if ('clap' in transform) size = transform.clap;
    else if ('imir' in transform)
      grid = transform.imir === 0 ? flipLeftRight(grid) : flipTopBottom(grid); // axis 0: about the vertical axis
    else
      for (let turn = 0; turn < transform.irot; turn++) [grid, size] = [rotateAnticlockwise(grid), [size[1], size[0]]];
  }
  const orientation = ORIENTATION_BY_GRID.get(key(grid)) ?? 1;
  // `size` is as displayed; hand back the stored size, which the caller turns by the orientation again.
  return orientation >= 5
    ? { width: size[1], height: size[0], orientation }
    : { width: size[0], height: size[1], orientation };
}
