/** The rules of resumable uploads (functions/domain/multipart-upload.ts): part plans, states, completion lists. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  expectedPartSize,
  MAX_PART_COUNT,
  MIN_PART_SIZE,
  partPlan,
  partsToComplete,
  uploadStep,
} from '../../functions/domain/multipart-upload.ts';
import { DomainError } from '../../functions/shared/errors.ts';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

describe('part plan', () => {
  it('cuts 5 MiB parts while that keeps 10,000 parts or fewer, and whole MiB above', () => {
    expect(partPlan(1)).toEqual({ partSize: 5 * MIB, partCount: 1 });
    expect(partPlan(40_000_000)).toEqual({ partSize: 5 * MIB, partCount: 8 });
    expect(partPlan(2 * GIB)).toEqual({ partSize: 5 * MIB, partCount: 410 });
    expect(partPlan(100 * GIB)).toEqual({ partSize: 11 * MIB, partCount: 9310 });
  });

  it('holds S3’s limits for every size, and the parts add up to the file', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 * 1024 * GIB }), (fileSize) => {
        const plan = partPlan(fileSize);
        expect(plan.partSize).toBeGreaterThanOrEqual(MIN_PART_SIZE);
        expect(plan.partSize % MIB).toBe(0);
        expect(plan.partCount).toBeLessThanOrEqual(MAX_PART_COUNT);
        const last = expectedPartSize(fileSize, plan, plan.partCount);
        expect(last).toBeGreaterThan(0);
        expect(last).toBeLessThanOrEqual(plan.partSize);
        expect(plan.partSize * (plan.partCount - 1) + last).toBe(fileSize);
      }),
    );
  });
});

describe('upload state', () => {
  const open = { apiKeyId: 'k', state: 'open' as const, expiresAt: 1000 };
  it('is found only by its own key, while open and unexpired, or decided', () => {
    expect(uploadStep(undefined, 'k', 0)).toBe('notFound');
    expect(uploadStep(open, 'other', 0)).toBe('notFound');
    expect(uploadStep(open, 'k', 999)).toBe('open');
    expect(uploadStep(open, 'k', 1000)).toBe('notFound');
    expect(uploadStep({ ...open, state: 'aborted' }, 'k', 0)).toBe('notFound');
    expect(uploadStep({ ...open, state: 'refused' }, 'k', 0)).toBe('refused');
    expect(uploadStep({ ...open, result: {} }, 'k', 5000)).toBe('decided');
    expect(uploadStep({ ...open, result: {} }, 'other', 0)).toBe('notFound');
  });
});

describe('parts to complete', () => {
  const fileSize = 12 * MIB;
  const plan = partPlan(fileSize);
  const stored = [
    { partNumber: 3, size: 2 * MIB, etag: '"c"' },
    { partNumber: 1, size: 5 * MIB, etag: '"a"' },
    { partNumber: 2, size: 5 * MIB, etag: '"b"' },
  ];
  const refusal = (named: { partNumber: number; etag: string }[], held = stored) => {
    try {
      partsToComplete(named, held, fileSize, plan);
    } catch (error) {
      return { code: (error as DomainError).code, part: (error as DomainError).details?.PartNumber };
    }
    return undefined;
  };

  it('answers the stored parts in order, whatever the order and quoting of the list', () => {
    const parts = partsToComplete(
      [
        { partNumber: 2, etag: 'b' },
        { partNumber: 3, etag: '"c"' },
        { partNumber: 1, etag: 'a' },
      ],
      stored,
      fileSize,
      plan,
    );
    expect(parts.map((part) => part.partNumber)).toEqual([1, 2, 3]);
  });

  it('names the first part that is missing, not uploaded, of another ETag or of the wrong size', () => {
    const all = [
      { partNumber: 1, etag: 'a' },
      { partNumber: 2, etag: 'b' },
      { partNumber: 3, etag: 'c' },
    ];
    expect(refusal(all.filter((part) => part.partNumber !== 2))).toEqual({ code: 'InvalidPart', part: 2 });
    expect(
      refusal(
        all,
        stored.filter((part) => part.partNumber !== 1),
      ),
    ).toEqual({ code: 'InvalidPart', part: 1 });
    expect(refusal(all.map((part) => (part.partNumber === 3 ? { ...part, etag: 'x' } : part)))).toEqual({
      code: 'InvalidPart',
      part: 3,
    });
    expect(
      refusal(
        all,
        stored.map((part) => (part.partNumber === 2 ? { ...part, size: 4 * MIB } : part)),
      ),
    ).toEqual({
      code: 'InvalidPart',
      part: 2,
    });
    expect(refusal([...all, { partNumber: 4, etag: 'd' }])).toEqual({ code: 'InvalidPart', part: 4 });
    expect(refusal([...all, { partNumber: 1, etag: 'a' }])).toEqual({ code: 'InvalidPart', part: 1 });
  });
});
