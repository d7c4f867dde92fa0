// The simulator CLI's options as a user types them: bad input exits 2 with a message naming the
// option, before any device connects; --print-ids lists what to register, TK103 units by 12 digits.
import { describe, expect, test } from '@jest/globals';
import { runCli } from '../helpers/cli.js';

const simulate = (args: string[]) => runCli(args, {}, 'tracker/simulator/cli.ts');

describe('bad input', () => {
  test.each([
    [['--devices', '0'], '--devices must be a whole number from 1 to 100000'],
    [['--devices', '1e3'], '--devices must be a whole number from 1 to 100000'],
    [['--protocol', 'traccar'], '--protocol must be one of gt06, teltonika, meitrack, h02, suntech, ruptela, wialon, gl200, jt808, gps103, tk103, osmand, mixed'],
    [['--imei-start', '35963310000'], '--imei-start must be a 15-digit IMEI'],
    [['--imei-start', '999999999999999', '--devices', '2'], '--imei-start leaves no room for 2 consecutive 15-digit IMEIs'],
    [['--imeis', '359633100000001,35963310000000x'], '--imeis must be 15-digit IMEIs separated by commas ("35963310000000x" is not)'],
    [['--imeis', '359633100000001,359633100000001'], '--imeis lists an IMEI twice'],
    [['--interval', '0'], '--interval must be between 0.1 and 3600 seconds'],
    [['--duration', '0'], '--duration must be a number of seconds above 0, at most a year'],
    [['--port', '65536'], '--port must be a port number from 1 to 65535'],
    [['--osmand-port', 'http'], '--osmand-port must be a port number from 1 to 65535'],
    [['--host', 'a b'], '--host must be a host name or address'],
    [['--scenario', 'crash'], '--scenario must be one of sos, speeding, fuel-drop'],
    [['--protocol-ports', 'osmand=5055'], '--protocol-ports: "osmand" is not one of gt06, teltonika, h02, suntech, meitrack, ruptela, wialon, gl200, jt808, gps103, tk103 (OsmAnd has --osmand-port)'],
    [['--protocol-ports', 'tk103'], '--protocol-ports: tk103 needs a port number from 1 to 65535 (tk103=PORT)'],
    [['--protocol-ports', 'tk103=0'], '--protocol-ports: tk103 needs a port number from 1 to 65535 (tk103=PORT)'],
    [['--speed', '3'], "Unknown option '--speed'"],
  ])('%j → exit 2, "%s"', async (args, message) => {
    const r = await simulate([...args, '--print-ids']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`error: ${message}`);
    expect(r.stderr).toContain('usage: simulate');
  });
});

test('--print-ids: consecutive IMEIs, every protocol in turn, TK103 by the last 12 digits', async () => {
  const r = await simulate(['--devices', '13', '--imei-start', '359633100000099', '--print-ids']);
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split('\n')).toEqual([
    '359633100000099 gt06',
    '359633100000100 teltonika',
    '359633100000101 meitrack',
    '359633100000102 h02',
    '359633100000103 suntech',
    '359633100000104 ruptela',
    '359633100000105 wialon',
    '359633100000106 gl200',
    '359633100000107 jt808',
    '359633100000108 gps103',
    '633100000109 tk103',
    '359633100000110 osmand',
    '359633100000111 gt06',
  ]);
});
