// A minimal H.264 (Constrained Baseline, CAVLC) encoder for the simulator's videos: any size, no
// ffmpeg. The picture is flat mid-grey: the IDR frame codes every macroblock as Intra 16x16 DC
// prediction with no residual (one byte per macroblock), and every later frame is a P frame whose
// macroblocks are all skipped (a handful of bytes). A 4K IDR is ~33 KB; a 15 s 1080p clip ~10 KB.
// Syntax per ITU-T H.264 (2016) 7.3: seq_parameter_set_rbsp, pic_parameter_set_rbsp,
// slice_header, slice_data, macroblock_layer, residual_block_cavlc.

class BitWriter {
  private readonly bytes: number[] = [];
  private cur = 0;
  private n = 0;

  u(bits: number, value: number): this {
    for (let i = bits - 1; i >= 0; i--) {
      this.cur = (this.cur << 1) | ((value >>> i) & 1);
      if (++this.n === 8) {
        this.bytes.push(this.cur);
        this.cur = 0;
        this.n = 0;
      }
    }
    return this;
  }

  /** Exp-Golomb ue(v). */
  ue(value: number): this {
    const v = value + 1;
    const len = 32 - Math.clz32(v);
    return this.u(len - 1, 0).u(len, v);
  }

  /** se(v): 0, 1, -1, 2, -2 ... map to 0, 1, 2, 3, 4. */
  se(value: number): this {
    return this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** rbsp_trailing_bits: a stop bit, then zeros to the byte boundary. */
  trailing(): Buffer {
    this.u(1, 1);
    while (this.n !== 0) this.u(1, 0);
    return Buffer.from(this.bytes);
  }
}

/** Emulation prevention (7.4.1): no 00 00 0x (x <= 3) inside a NAL unit. */
function nal(refIdc: number, type: number, rbsp: Buffer): Buffer {
  const out: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const b of rbsp) {
    if (zeros >= 2 && b <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

export interface H264Stream {
  sps: Buffer;
  pps: Buffer;
  idr: Buffer;
  /** P frame number `i` (1-based within the GOP; frame_num is i mod 16). */
  pFrame(i: number): Buffer;
  profile: number;
  compatibility: number;
  level: number;
}

const MAX_FRAME_NUM = 16; // log2_max_frame_num_minus4 = 0

/** Level 3.1 up to 720p, 4.0 up to 1080p, 5.1 up to 4K, else 5.2 (Table A-1 MaxFS). */
function levelFor(mbs: number): number {
  if (mbs <= 3600) return 31;
  if (mbs <= 8192) return 40;
  if (mbs <= 36864) return 51;
  return 52;
}

export function h264Stream(width: number, height: number): H264Stream {
  if (width % 2 || height % 2 || width < 16 || height < 16) throw new Error(`h264: unsupported size ${width}x${height}`);
  const mbW = Math.ceil(width / 16);
  const mbH = Math.ceil(height / 16);
  const mbs = mbW * mbH;
  const level = levelFor(mbs);
  const profile = 66;
  const compatibility = 0xc0; // constraint_set0 + set1: Constrained Baseline

  const sps = new BitWriter()
    .u(8, profile).u(8, compatibility).u(8, level)
    .ue(0) // seq_parameter_set_id
    .ue(0) // log2_max_frame_num_minus4
    .ue(2) // pic_order_cnt_type 2: output order = decode order, no B frames
    .ue(1) // max_num_ref_frames
    .u(1, 0) // gaps_in_frame_num_value_allowed_flag
    .ue(mbW - 1)
    .ue(mbH - 1)
    .u(1, 1) // frame_mbs_only_flag
    .u(1, 1); // direct_8x8_inference_flag
  const cropRight = mbW * 16 - width;
  const cropBottom = mbH * 16 - height;
  if (cropRight || cropBottom) sps.u(1, 1).ue(0).ue(cropRight / 2).ue(0).ue(cropBottom / 2); // CropUnit 2 in 4:2:0
  else sps.u(1, 0);
  sps.u(1, 0); // vui_parameters_present_flag

  const pps = new BitWriter()
    .ue(0).ue(0) // pic / seq parameter set ids
    .u(1, 0) // entropy_coding_mode_flag: CAVLC
    .u(1, 0) // bottom_field_pic_order_in_frame_present_flag
    .ue(0) // num_slice_groups_minus1
    .ue(0).ue(0) // num_ref_idx_l0/l1_default_active_minus1
    .u(1, 0).u(2, 0) // weighted_pred_flag, weighted_bipred_idc
    .se(0).se(0).se(0) // pic_init_qp/qs_minus26, chroma_qp_index_offset
    .u(1, 0) // deblocking_filter_control_present_flag
    .u(1, 0) // constrained_intra_pred_flag
    .u(1, 0); // redundant_pic_cnt_present_flag

  const idr = new BitWriter()
    .ue(0) // first_mb_in_slice
    .ue(7) // slice_type I (all slices)
    .ue(0) // pic_parameter_set_id
    .u(4, 0) // frame_num
    .ue(0) // idr_pic_id
    .u(1, 0).u(1, 0) // dec_ref_pic_marking: no_output_of_prior_pics, long_term_reference
    .se(0); // slice_qp_delta
  // mb_type 3 = I_16x16_2_0_0 (DC prediction, no chroma/AC residual); intra_chroma_pred_mode 0 (DC);
  // mb_qp_delta 0; Intra16x16DCLevel coeff_token "1" = no coefficients (nC = 0: no neighbour has any).
  for (let i = 0; i < mbs; i++) idr.ue(3).ue(0).se(0).u(1, 1);

  const pCache = new Map<number, Buffer>();
  const pFrame = (i: number): Buffer => {
    const frameNum = i % MAX_FRAME_NUM;
    let b = pCache.get(frameNum);
    if (!b) {
      const w = new BitWriter()
        .ue(0) // first_mb_in_slice
        .ue(5) // slice_type P (all slices)
        .ue(0) // pic_parameter_set_id
        .u(4, frameNum)
        .u(1, 0) // num_ref_idx_active_override_flag
        .u(1, 0) // ref_pic_list_modification_flag_l0
        .u(1, 0) // adaptive_ref_pic_marking_mode_flag (sliding window)
        .se(0) // slice_qp_delta
        .ue(mbs); // mb_skip_run: every macroblock copies the previous frame
      b = nal(2, 1, w.trailing());
      pCache.set(frameNum, b);
    }
    return b;
  };

  return { sps: nal(3, 7, sps.trailing()), pps: nal(3, 8, pps.trailing()), idr: nal(3, 5, idr.trailing()), pFrame, profile, compatibility, level };
}
