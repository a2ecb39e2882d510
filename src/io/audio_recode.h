/* audio_recode.h - an input sound stream encoded again for an output that
 * cannot take it as it is (audio_recode.c); the encoder's (encoder.c). */
#ifndef CLVID_AUDIO_RECODE_H
#define CLVID_AUDIO_RECODE_H

#include "io.h"

typedef struct clv_audio_recode clv_audio_recode;

/* Where the encoded packets go: write(user, pkt) takes each (the packet's
 * contents are its to keep or unreference, as av_interleaved_write_frame
 * does) and returns 0 or an AVERROR. */
typedef int (*clv_packet_write)(void *user, AVPacket *pkt);

/* Sets up the encoding of stream s with encoder ec (the container's own
 * sound codec, -c:a's, or AAC for a microphone) into *out, at `rate` (0:
 * the nearest to the input's), with the codec's header out of band when
 * global_header (a muxer's AVFMT_GLOBALHEADER); `path` (the output) and
 * `what` name it in messages. The first sample goes where its timestamp
 * says (the stream's start offset is kept). Returns 0, or -1 with msg and
 * *out NULL. */
int clv_audio_recode_open(int global_header, const char *path, const clv_stream_desc *s,
                          const AVCodec *ec, const char *what, int rate, clv_audio_recode **out,
                          clv_msg *msg);
/* The opened encoder: the output stream's parameters and time base. */
const AVCodecContext *clv_audio_recode_encoder(const clv_audio_recode *a);
/* The output stream the packets go to (its index and time base, read at
 * each write: a muxer's header may change it), through write. */
void clv_audio_recode_set_output(clv_audio_recode *a, const AVStream *out, clv_packet_write write,
                                 void *user);
/* Decodes one packet of the stream (NULL: flush at the end), resamples and
 * encodes what it gives, and writes the packets. Returns 0 or an AVERROR;
 * a corrupt packet is skipped. */
int clv_audio_recode_packet(clv_audio_recode *a, const AVPacket *p);
/* Frees a; NULL and a half-opened one are fine. */
void clv_audio_recode_close(clv_audio_recode *a);

#endif
