#!/usr/bin/env python3
"""tests/bench/rpc_calls.py PCAP - the NFSv3 calls in a capture (tcpdump -w, link
type Ethernet or Linux cooked, TCP to the server's port only), counted by procedure,
one "NAME COUNT" a line, most first. Each direction of each connection is put back in
sequence order, then walked record by record (RPC record marking, RFC 5531 11): a
call's header gives its program and procedure. For the workloads bench, which
counts what mdtest -a LIBNFS sends (libnfs counts nothing for it)."""
import struct
import sys

NFS3 = {0: 'NULL', 1: 'GETATTR', 2: 'SETATTR', 3: 'LOOKUP', 4: 'ACCESS', 5: 'READLINK',
        6: 'READ', 7: 'WRITE', 8: 'CREATE', 9: 'MKDIR', 10: 'SYMLINK', 11: 'MKNOD',
        12: 'REMOVE', 13: 'RMDIR', 14: 'RENAME', 15: 'LINK', 16: 'READDIR',
        17: 'READDIRPLUS', 18: 'FSSTAT', 19: 'FSINFO', 20: 'PATHCONF', 21: 'COMMIT'}


def segments(path):
    with open(path, 'rb') as f:
        head = f.read(24)
        magic = struct.unpack('<I', head[:4])[0]
        end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
        link = struct.unpack(end + 'I', head[20:24])[0]
        off = {1: 14, 113: 16, 276: 20}.get(link)
        if off is None:
            sys.exit('rpc_calls.py: link type %d not read' % link)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(end + 'IIII', rec)[2]
            pkt = f.read(incl)
            ip = pkt[off:]
            if not ip or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            ihl = (ip[0] & 15) * 4
            total = struct.unpack('>H', ip[2:4])[0]
            tcp = ip[ihl:total]
            sport, dport, seq = struct.unpack('>HHI', tcp[:8])
            data = tcp[(tcp[12] >> 4) * 4:]
            if data:
                yield (ip[12:16], sport, ip[16:20], dport), seq, data


def main():
    streams = {}
    for key, seq, data in segments(sys.argv[1]):
        streams.setdefault(key, {})[seq] = data  # a retransmission replaces its first copy
    counts = {}
    for parts in streams.values():
        seqs = sorted(parts)
        buf, nxt = b'', None
        for s in seqs:  # sequence order; the bytes a segment repeats are skipped
            d = parts[s]
            if nxt is not None and s < nxt:
                d = d[nxt - s:]
            buf += d
            nxt = s + len(parts[s]) if nxt is None or s + len(parts[s]) > nxt else nxt
        i = 0
        while i + 4 <= len(buf):
            mark = struct.unpack('>I', buf[i:i + 4])[0]
            n = mark & 0x7fffffff
            body = buf[i + 4:i + 4 + n]
            if len(body) >= 24:
                xid, mtype, rpcvers, prog, vers, proc = struct.unpack('>6I', body[:24])
                if mtype == 0 and prog == 100003 and vers == 3:
                    name = NFS3.get(proc, 'proc%d' % proc)
                    counts[name] = counts.get(name, 0) + 1
            i += 4 + n
    for name, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
        print(name, n)


main()
