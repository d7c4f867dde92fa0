import { describe, expect, it } from '@jest/globals';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';
import { suntech } from '../../../tracker/protocols/suntech/index.js';
import { protocolState } from './helpers.js';

const text = (s: string) => Buffer.from(s, 'latin1');
const decode = (s: string, conn = protocolState()) => suntech.decode(text(s), conn);

// Reports written from Suntech's documented field order, with values of our own.
const universalStt = 'STT;0912345678;3FFFFF;91;1.0.8;1;20240311;09:15:30;0001A2B3;724;5;1F2E;21;-23.550520;-46.633310;52.40;181.50;9;1;00000001;00000000;1;1;0001;2;';
const legacyStt = 'ST300STT;812345678;04;408;20240311;09:15:30;1a2b3;-23.550520;-046.633310;052.400;181.50;9;1;123456;12.60;100010;1;0042';

describe('Suntech text reports', () => {
  it('universal STT: the fix, inputs and cell in our units', () => {
    const r = decode(universalStt);
    expect(r.identity).toBe('0912345678');
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2024-03-11T09:15:30.000Z');
    expect([p.valid, p.lat, p.lng, p.speed, p.heading, p.satellites]).toEqual([true, -23.55052, -46.63331, 52.4, 181.5, 9]);
    expect(p.attributes.ignition).toBe(true);
    expect(p.attributes.rssi).toBe(21);
    expect(p.attributes.network?.cellTowers?.[0]).toEqual({ cellId: 0x1a2b3, mobileCountryCode: 724, mobileNetworkCode: 5, locationAreaCode: 0x1f2e });
    expect(r.reply).toBeUndefined();
  });

  it('universal ALT 42 is an SOS', () => {
    const r = decode('ALT;0912345678;3FFFFF;91;1.0.8;1;20240311;09:15:30;0001A2B3;724;5;1F2E;21;-23.550520;-46.633310;0.00;0.00;9;1;00000001;00000000;42;0;');
    expect(r.positions[0]!.attributes.alarm).toBe('sos');
  });

  it('legacy ST300 STT: odometer, power and the I/O string', () => {
    const p = decode(legacyStt).positions[0]!;
    expect([p.lat, p.lng, p.speed, p.heading]).toEqual([-23.55052, -46.63331, 52.4, 181.5]);
    expect(p.attributes).toMatchObject({ odometer: 123456, power: 12.6, ignition: true, in1: false, out1: true, out2: false });
  });

  it('legacy EMG 1 is an SOS; ALV is a keep-alive without a position', () => {
    const emg = decode('SA200EMG;812345;042;20240311;09:15:30;1a2b3;-23.550520;-046.633310;000.000;000.00;8;1;4154;12.17;110000;1');
    expect(emg.positions[0]!.attributes.alarm).toBe('sos');
    const alv = decode('SA200ALV;812345');
    expect(alv).toMatchObject({ identity: '812345', positions: [], heartbeat: true });
  });

  it('a command result comes back as the command reply, placed at the last fix', () => {
    const conn = protocolState();
    decode(legacyStt, conn);
    const r = decode('ST300CMD;Res;812345678;02;Enable1', conn);
    expect(r.commandReply).toBe('02;Enable1');
    expect(r.positions[0]).toMatchObject({ valid: false, lat: -23.55052, lng: -46.63331, attributes: { result: '02;Enable1' } });
  });

  it('hour-meter fields when the unit adds them: engine time, backup battery, a driver id or a serving cell', () => {
    const driver = decode(`${legacyStt};003188;4.1;1;01B54221010000;0`).positions[0]!.attributes;
    expect(driver).toMatchObject({ engineHours: 191_280, battery: 4.1, driverUniqueId: '01B54221010000' });
    expect(driver.archive).toBeUndefined();
    const cell = decode(`${legacyStt};003188;4.1;0;23675;724;5;-75;1351;1`).positions[0]!.attributes;
    expect(cell).toMatchObject({ archive: true, network: { cellTowers: [{ cellId: 23675, mobileCountryCode: 724, mobileNetworkCode: 5, signalStrength: -75, locationAreaCode: 1351 }] } });
    expect(cell.driverUniqueId).toBeUndefined();
    // Fields of another shape are left alone.
    expect(decode(`${legacyStt};017.159;0;002.327`).positions[0]!.attributes.engineHours).toBeUndefined();
  });

  it('a report with a field that is not a number yields nothing instead of throwing', () => {
    expect(decode(legacyStt.replace('052.400', 'fast')).positions).toEqual([]);
  });
});

describe('Suntech framing', () => {
  const stream = text(`${legacyStt}\r${universalStt}\r`);

  it('a frame cut at every byte comes out whole, without its \\r', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const framer = suntech.createFramer(65536);
      const frames = [...framer.push(stream.subarray(0, cut)), ...framer.push(stream.subarray(cut))];
      expect(frames.map((f) => f.toString('latin1'))).toEqual([legacyStt, universalStt]);
    }
  });

  it('a "\\r\\n" inside a serial payload does not end the report', () => {
    const uex = 'ST300UEX;812345678;04;408;20240311;09:15:30;1a2b3;-23.550520;-046.633310;052.400;181.50;9;1;123456;12.60;100010;8;AB\r\nCDE;3E';
    expect(suntech.createFramer(65536).push(text(`${uex}\r`)).map((f) => f.toString('latin1'))).toEqual([uex]);
  });
});

describe('Suntech commands', () => {
  it('are the legacy CMD lines naming the unit', () => {
    const id = { identity: '812345678' };
    expect(suntech.commands.reboot!(1, id).toString('latin1')).toBe('SA200CMD;812345678;02;Reboot\r');
    expect(suntech.commands.locate!(1, id).toString('latin1')).toBe('SA200CMD;812345678;02;StatusReq\r');
    expect(suntech.commands.engineStop!(1, id).toString('latin1')).toBe('SA200CMD;812345678;02;Enable1\r');
    expect(suntech.commands.engineResume!(1, id).toString('latin1')).toBe('SA200CMD;812345678;02;Disable1\r');
    expect(suntech.commands.custom!(1, { ...id, text: 'PresetA' }).toString('latin1')).toBe('SA200CMD;812345678;02;PresetA\r');
  });
});

describe('Suntech autodetect', () => {
  it('only Suntech claims a Suntech first frame', () => {
    for (const first of [legacyStt, universalStt, 'SA200ALV;812345']) {
      expect(PROTOCOLS.filter((p) => p.detect(text(first))).map((p) => p.name)).toEqual(['suntech']);
    }
  });
});

describe('Suntech binary reports', () => {
  it('0x81 universal binary: the fields the mask selects', () => {
    // Mask bits 4, 5 (date, time), 11, 12 (lat, lon), 13, 14 (speed, course), 15, 16 (satellites, fix), 17 (inputs).
    const mask = [4, 5, 11, 12, 13, 14, 15, 16, 17].reduce((m, b) => m | (1 << b), 0);
    const body = Buffer.concat([
      Buffer.from('0912345678', 'hex'),
      Buffer.from([mask >> 16, (mask >> 8) & 0xff, mask & 0xff]),
      Buffer.from([24, 3, 11, 9, 15, 30]),
      Buffer.from((0x80000000 + 23550520).toString(16), 'hex'), // sign and magnitude: south
      Buffer.from((0x80000000 + 46633310).toString(16), 'hex'),
      Buffer.from([0x14, 0x78, 0x46, 0xe6, 9, 1, 1]), // 52.40 km/h, 181.50°, 9 satellites, valid, ignition
    ]);
    const frame = Buffer.concat([Buffer.from([0x81, 0, body.length]), body]);
    expect(suntech.createFramer(65536).push(Buffer.concat([frame, frame]))).toHaveLength(2);
    const r = suntech.decode(frame, protocolState());
    expect(r.identity).toBe('0912345678');
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2024-03-11T09:15:30.000Z');
    expect([p.valid, p.lat, p.lng, p.speed, p.heading, p.satellites, p.attributes.ignition]).toEqual([true, -23.55052, -46.63331, 52.4, 181.5, 9, true]);
  });
});
