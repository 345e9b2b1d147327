/** The print-quality formula of GET /library/{itemGuid}?printWidthMm=&printHeightMm= (domain/print-quality.ts). */
import { describe, expect, it } from 'vitest';
import { printQuality } from '../../functions/domain/print-quality.ts';

const thresholds = { good: 300, fair: 150 };

describe('printQuality', () => {
  it('computes the documented worked example: 4000 x 3000 px on 150 x 100 mm is 677 ppi, Good', () => {
    expect(printQuality({ width: 4000, height: 3000 }, { widthMm: 150, heightMm: 100 }, thresholds)).toEqual({
      effectivePpi: 677,
      rating: 'Good',
    });
  });

  it('turns the print so its long side lies along the image long side, whichever order the sides come in', () => {
    const landscape = printQuality({ width: 4000, height: 3000 }, { widthMm: 100, heightMm: 150 }, thresholds);
    expect(landscape).toEqual({ effectivePpi: 677, rating: 'Good' });
    expect(printQuality({ width: 3000, height: 4000 }, { widthMm: 150, heightMm: 100 }, thresholds)).toEqual(landscape);
  });

  it('takes the axis stretched most (crop to fill): a square print of a 2:1 image is limited by the short side', () => {
    // 2000 x 1000 on 100 x 100 mm: 1000 px over 3.937 in = 254 ppi.
    expect(printQuality({ width: 2000, height: 1000 }, { widthMm: 100, heightMm: 100 }, thresholds)).toEqual({
      effectivePpi: 254,
      rating: 'Fair',
    });
  });

  it('rates at the thresholds inclusively and below fair as Poor', () => {
    // 25.4 mm is one inch: the effective ppi equals the pixel count.
    expect(printQuality({ width: 300, height: 300 }, { widthMm: 25.4, heightMm: 25.4 }, thresholds).rating).toBe(
      'Good',
    );
    expect(printQuality({ width: 299, height: 299 }, { widthMm: 25.4, heightMm: 25.4 }, thresholds)).toEqual({
      effectivePpi: 299,
      rating: 'Fair',
    });
    expect(printQuality({ width: 150, height: 150 }, { widthMm: 25.4, heightMm: 25.4 }, thresholds).rating).toBe(
      'Fair',
    );
    expect(printQuality({ width: 149, height: 149 }, { widthMm: 25.4, heightMm: 25.4 }, thresholds)).toEqual({
      effectivePpi: 149,
      rating: 'Poor',
    });
  });

  it('is exact where decimal millimetres are not exact in binary: 1800 px over 152.4 mm is 300 ppi', () => {
    expect(printQuality({ width: 1800, height: 1200 }, { widthMm: 152.4, heightMm: 101.6 }, thresholds)).toEqual({
      effectivePpi: 300,
      rating: 'Good',
    });
    expect(printQuality({ width: 3600, height: 2400 }, { widthMm: 304.8, heightMm: 203.2 }, thresholds)).toEqual({
      effectivePpi: 300,
      rating: 'Good',
    });
  });

  it('honours other thresholds', () => {
    expect(
      printQuality({ width: 200, height: 200 }, { widthMm: 25.4, heightMm: 25.4 }, { good: 200, fair: 100 }).rating,
    ).toBe('Good');
  });
});
