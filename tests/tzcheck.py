#!/usr/bin/env python3
"""tzcheck.py TRACE INFO.json - checks etldump's time-zone cells of --info
against the trace's own bytes (tests/real.sh); tzcheck.py --times TRACE
ABS.csv LOCAL.csv, that each row's time of --time=local is the instant of
its --time=abs at the offset the zone's rules give then.

It reads the logfile header where a trace begins (the header buffer at
offset 0: its first record, a SYSTEM32 or SYSTEM64 header event of 0x20
bytes, at 0x48), TIME_ZONE_INFORMATION at 0x38 + 2 pointers into the
event's data and StartTime past it (doc/format.md section 4), and works
out the offset from UTC at StartTime with Python's datetime by Windows'
rules: the change to daylight time on the given day at its hour in
standard time, back at its hour in daylight time; wYear 0 means the n-th
weekday of the month every year (5: the last). Exits 1, saying what
differs, when a cell of INFO.json (one line of etldump --info -f json)
is not what the bytes say.
"""
import csv
import datetime
import json
import struct
import sys

FILETIME_EPOCH = datetime.datetime(1601, 1, 1)


def zone_name(raw):
    units = [u for (u,) in struct.iter_unpack("<H", raw)]
    if 0 in units:
        units = units[:units.index(0)]
    return b"".join(struct.pack("<H", u) for u in units).decode("utf-16-le", "replace")


def change(st, year):
    """The local date and time of a change (SYSTEMTIME st) in year."""
    w_year, month, dow, day, hour, minute, sec, ms = st
    if w_year:
        date = datetime.date(year, month, day)
    else:
        first = datetime.date(year, month, 1)
        # Python's weekday(): Monday 0; SYSTEMTIME's: Sunday 0.
        shift = (dow - (first.weekday() + 1) % 7) % 7
        date = first + datetime.timedelta(days=shift + 7 * (day - 1))
        while date.month != month:
            date -= datetime.timedelta(days=7)
    return datetime.datetime(date.year, date.month, date.day, hour, minute, sec, ms * 1000)


def read_zone(trace):
    """The zone and StartTime of the trace's logfile header, or None."""
    with open(trace, "rb") as f:
        head = f.read(0x48 + 0x20 + 0x200)
    kind = head[0x48 + 2]
    ptr = {1: 4, 2: 8}.get(kind)
    if ptr is None:
        print(f"{trace}: the first record is not a SYSTEM header event (type {kind})")
        return None
    data = 0x48 + 0x20
    tz = data + 0x38 + 2 * ptr
    bias, = struct.unpack_from("<i", head, tz)
    std_name = zone_name(head[tz + 4:tz + 68])
    std_date = struct.unpack_from("<8H", head, tz + 68)
    std_bias, = struct.unpack_from("<i", head, tz + 84)
    dst_name = zone_name(head[tz + 88:tz + 152])
    dst_date = struct.unpack_from("<8H", head, tz + 152)
    dst_bias, = struct.unpack_from("<i", head, tz + 168)
    start_ft, = struct.unpack_from("<q", head, tz + 0xAC + 4 + 16)
    return (bias, std_name, std_date, std_bias, dst_name, dst_date, dst_bias), start_ft


def offset_at(zone, utc):
    """Minutes local time is ahead of UTC at datetime utc, by the zone's rules."""
    bias, _, std_date, std_bias, _, dst_date, dst_bias = zone
    daylight = False
    if std_date[1] and dst_date[1]:
        year = (utc - datetime.timedelta(minutes=bias + std_bias)).year
        on = change(dst_date, year) + datetime.timedelta(minutes=bias + std_bias)
        off = change(std_date, year) + datetime.timedelta(minutes=bias + dst_bias)
        daylight = on <= utc < off if on < off else (utc >= on or utc < off)
    return -(bias + (dst_bias if daylight else std_bias))


def offset_str(minutes):
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def check_times(trace, abs_csv, local_csv):
    """Each row's time in local_csv (--time=local) is the instant of the
    same row's in abs_csv (--time=abs) at the offset the rules give."""
    got = read_zone(trace)
    if got is None:
        return 1
    zone, _ = got
    bad = []
    with open(abs_csv, newline="", encoding="utf-8") as fa, \
         open(local_csv, newline="", encoding="utf-8") as fl:
        rows = 0
        for n, (a, l) in enumerate(zip(csv.DictReader(fa), csv.DictReader(fl)), start=2):
            rows += 1
            at, lt = a["time"], l["time"]
            # 2020-09-14T22:49:57.2118091Z and 2020-09-14T15:49:57.2118091-07:00
            utc = datetime.datetime.strptime(at[:19], "%Y-%m-%dT%H:%M:%S")
            want = offset_at(zone, utc + datetime.timedelta(microseconds=int(at[20:27]) // 10))
            local = utc + datetime.timedelta(minutes=want)
            expect = local.strftime("%Y-%m-%dT%H:%M:%S") + at[19:27] + offset_str(want)
            if lt != expect:
                bad.append(f"row {n}: {lt}, not {expect} (UTC {at})")
    for b in bad[:3]:
        print(f"{trace}: {b}")
    if rows == 0:
        print(f"{trace}: no rows")
    return 1 if bad or rows == 0 else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--times":
        return check_times(*sys.argv[2:])
    trace, info = sys.argv[1], sys.argv[2]
    got = read_zone(trace)
    if got is None:
        return 1
    zone, start_ft = got
    bias, std_name, _, std_bias, dst_name, _, dst_bias = zone
    utc = FILETIME_EPOCH + datetime.timedelta(microseconds=start_ft // 10)
    offset = offset_str(offset_at(zone, utc))
    want = {
        "time_zone_bias": bias, "time_zone_standard_bias": std_bias,
        "time_zone_daylight_bias": dst_bias, "utc_offset": offset,
        "time_zone_standard_name": std_name or None, "time_zone_daylight_name": dst_name or None,
    }
    with open(info, encoding="utf-8") as f:
        got = json.loads(f.readline())
    bad = [f"{k}: {got.get(k)!r}, the bytes say {v!r}" for k, v in want.items() if got.get(k) != v]
    for b in bad:
        print(f"{trace}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
