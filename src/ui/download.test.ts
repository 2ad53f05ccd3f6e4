import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { downloadText } from './download';

describe('downloadText', () => {
  const link = {
    href: '',
    download: '',
    rel: '',
    click: vi.fn(),
    remove: vi.fn(),
  };
  const append = vi.fn();

  let createObjectURL: MockInstance<typeof URL.createObjectURL>;
  let revokeObjectURL: MockInstance<typeof URL.revokeObjectURL>;

  beforeEach(() => {
    vi.useFakeTimers();
    // Only the two statics: the rest of URL stays the real one.
    createObjectURL = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:taskscope/1');
    revokeObjectURL = vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
    vi.stubGlobal('document', { createElement: vi.fn(() => link), body: { append } });
  });

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    vi.clearAllMocks();
  });

  it('keeps the object URL alive for 30 s after the click, then revokes that same URL', async () => {
    downloadText('trace.json', '{"a":1}', 'application/json');

    expect(link.click).toHaveBeenCalledOnce();
    expect(link).toMatchObject({ href: 'blob:taskscope/1', download: 'trace.json' });
    expect(append).toHaveBeenCalledWith(link);
    expect(link.remove).toHaveBeenCalledOnce();
    const blob = createObjectURL.mock.calls[0]![0] as Blob;
    expect([blob.type, await blob.text()]).toEqual(['application/json', '{"a":1}']);

    vi.advanceTimersByTime(29_999);
    expect(revokeObjectURL).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(revokeObjectURL).toHaveBeenCalledExactlyOnceWith('blob:taskscope/1');
  });
});
