/**
 * What an IP address reaches, for the rules that keep a receiver from aiming Taskscope at this machine, the
 * local network or a cloud metadata service: the sign-in's endpoint checks in the browser and the relay's
 * check of every address a name resolves to. Pure, so both sides share one reading of every form.
 */
export type AddressKind = 'loopback' | 'private' | 'link-local' | 'metadata' | 'other';

function ipv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The eight 16-bit groups of an IPv6 address (compressed, a trailing dotted quad included), or undefined. */
function ipv6(text: string): number[] | undefined {
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string, quadAllowed: boolean): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    const fields = part.split(':');
    for (const [i, field] of fields.entries()) {
      if (quadAllowed && i === fields.length - 1 && field.includes('.')) {
        const quad = ipv4(field);
        if (!quad) return undefined;
        const [a = 0, b = 0, c = 0, d = 0] = quad;
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-f]{1,4}$/i.test(field)) groups.push(parseInt(field, 16));
      else return undefined;
    }
    return groups;
  };
  const compressed = halves.length === 2;
  const left = parse(halves[0] ?? '', !compressed);
  const right = compressed ? parse(halves[1] ?? '', true) : [];
  if (!left || !right) return undefined;
  const missing = 8 - left.length - right.length;
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  return [...left, ...Array<number>(missing).fill(0), ...right];
}

/**
 * The IPv4 address inside an IPv6 one that a socket may end up reaching: mapped (::ffff:a.b.c.d), translated
 * (::ffff:0:a.b.c.d), compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). A check on the IPv6 form alone
 * would let ::ffff:169.254.169.254 through.
 */
function embeddedIpv4(groups: number[]): { bytes: number[]; compatible: boolean } | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  const mapped = zeroTo(5) && g5 === 0xffff;
  const translated = zeroTo(4) && g4 === 0xffff && g5 === 0;
  const compatible = zeroTo(6) && (g6 !== 0 || g7 > 1);
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (!mapped && !translated && !compatible && !nat64) return undefined;
  return {
    bytes: [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff],
    compatible: compatible && !mapped && !translated,
  };
}

function kindOfIpv4([a = 0, b = 0, c = 0, d = 0]: number[]): AddressKind {
  // 0.0.0.0/8 is "this host": connecting to it reaches loopback listeners.
  if (a === 127 || a === 0) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  // Alibaba Cloud's metadata service, inside 100.64/10 but worse than private.
  if (a === 100 && b === 100 && c === 100 && d === 200) return 'metadata';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private';
  return 'other';
}

/** An IP literal (brackets and a zone id allowed) by what it reaches; a host name is 'other'. */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const quad = ipv4(bare);
  if (quad) return kindOfIpv4(quad);
  const groups = ipv6(bare);
  if (!groups) return 'other';
  const embedded = embeddedIpv4(groups);
  if (embedded) {
    const kind = kindOfIpv4(embedded.bytes);
    // IPv4-compatible addresses (::a.b.c.d) are deprecated and never a public endpoint.
    return kind === 'other' && embedded.compatible ? 'private' : kind;
  }
  if (groups.slice(0, 7).every((g) => g === 0) && (groups[7] ?? 0) <= 1) return 'loopback';
  const first = groups[0] ?? 0;
  // The rest of ::/16 (::1:0:0:1, ::ffff:1) is reserved, never a public endpoint: as private, to be refused.
  if (first === 0) return 'private';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  // AWS's metadata service over IPv6 (fd00:ec2::254) sits in unique-local space.
  if (groups.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':')) return 'metadata';
  if ((first & 0xfe00) === 0xfc00) return 'private';
  return 'other';
}

/**
 * This machine or a private network, judged from a URL's host as the URL parser normalised it (so 2130706433,
 * 0x7f.1 and [::ffff:127.0.0.1] are seen for what they are). A name that resolves to such an address is not
 * caught here: the browser cannot resolve names.
 */
export function isPrivateHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  return addressKind(h) !== 'other';
}
