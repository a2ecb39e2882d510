/* sound.c - the sound output: SDL2's audio callback pulls float samples
 * from a ring the player fills, so volume and mute act at once and the
 * clock knows the media time of the sample being heard. */
#include "present.h"

#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run of samples written with one timestamp; the clock maps the ring's
 * read position back to media time through these. */
typedef struct chunk {
    uint64_t first; /* index of its first sample frame in the ring's history */
    double pts;
} chunk;

#define CHUNKS 512

struct clv_sound {
    SDL_AudioDeviceID device;
    SDL_AudioSpec spec;
    /* Guarded by the audio device lock (SDL_LockAudioDevice): */
    float *ring;
    uint64_t capacity;      /* in sample frames */
    uint64_t written, read; /* sample frames since the start (monotonic) */
    chunk chunks[CHUNKS];
    int chunk_head, chunk_count;
    float volume;
    int playing; /* 0 after a clear or a run dry, until written again */
};

static void pull(void *userdata, Uint8 *stream, int len)
{
    clv_sound *s = userdata;
    int channels = s->spec.channels;
    float *out = (float *)stream;
    uint64_t want = (uint64_t)len / (sizeof(float) * (size_t)channels);
    uint64_t have = s->written - s->read;
    uint64_t n = have < want ? have : want;
    for (uint64_t i = 0; i < n; i++) {
        const float *src = s->ring + ((s->read + i) % s->capacity) * (uint64_t)channels;
        for (int c = 0; c < channels; c++)
            out[i * (uint64_t)channels + (uint64_t)c] = src[c] * s->volume;
    }
    memset(out + n * (uint64_t)channels, 0, (size_t)(want - n) * sizeof(float) * (size_t)channels);
    s->read += n;
    if (n < want)
        s->playing = 0;
    /* Forget chunks wholly played. */
    while (s->chunk_count > 1 && s->chunks[(s->chunk_head + 1) % CHUNKS].first <= s->read) {
        s->chunk_head = (s->chunk_head + 1) % CHUNKS;
        s->chunk_count--;
    }
}

int clv_sound_open(int rate, int channels, clv_sound **out, clv_msg *msg)
{
    *out = NULL;
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) != 0)
        return snprintf(msg->text, sizeof msg->text, "no sound output: %s", SDL_GetError()),
               CLV_EIO;
    clv_sound *s = calloc(1, sizeof *s);
    if (!s)
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    SDL_AudioSpec want = {0};
    want.freq = rate;
    want.format = AUDIO_F32SYS;
    want.channels = (Uint8)channels;
    want.samples = 1024;
    want.callback = pull;
    want.userdata = s;
    s->device = SDL_OpenAudioDevice(NULL, 0, &want, &s->spec, 0);
    if (!s->device) {
        snprintf(msg->text, sizeof msg->text, "no sound output: %s", SDL_GetError());
        free(s);
        return CLV_EIO;
    }
    s->capacity = (uint64_t)rate * 4; /* four seconds */
    s->ring = malloc((size_t)s->capacity * (size_t)channels * sizeof(float));
    if (!s->ring) {
        clv_sound_close(s);
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    }
    s->volume = 1.0f;
    SDL_PauseAudioDevice(s->device, 0);
    *out = s;
    return 0;
}

void clv_sound_close(clv_sound *s)
{
    if (!s)
        return;
    if (s->device)
        SDL_CloseAudioDevice(s->device);
    free(s->ring);
    free(s);
    SDL_QuitSubSystem(SDL_INIT_AUDIO); /* clv_sound_open's */
}

int clv_sound_rate(const clv_sound *s)
{
    return s->spec.freq;
}

int clv_sound_channels(const clv_sound *s)
{
    return s->spec.channels;
}

int clv_sound_write(clv_sound *s, const float *samples, int frames, double pts)
{
    int channels = s->spec.channels;
    SDL_LockAudioDevice(s->device);
    if (s->written - s->read + (uint64_t)frames > s->capacity || s->chunk_count == CHUNKS) {
        SDL_UnlockAudioDevice(s->device);
        return CLV_ELIMIT;
    }
    for (int i = 0; i < frames; i++)
        memcpy(s->ring + ((s->written + (uint64_t)i) % s->capacity) * (uint64_t)channels,
               samples + (size_t)i * (size_t)channels, sizeof(float) * (size_t)channels);
    s->chunks[(s->chunk_head + s->chunk_count) % CHUNKS] = (chunk){s->written, pts};
    s->chunk_count++;
    s->written += (uint64_t)frames;
    s->playing = 1;
    SDL_UnlockAudioDevice(s->device);
    return 0;
}

double clv_sound_buffered(const clv_sound *s)
{
    SDL_LockAudioDevice(s->device);
    double b = (double)(s->written - s->read) / s->spec.freq;
    SDL_UnlockAudioDevice(s->device);
    return b;
}

double clv_sound_clock(const clv_sound *s)
{
    double t = -1;
    SDL_LockAudioDevice(s->device);
    if (s->playing && s->chunk_count > 0) {
        const chunk *c = &s->chunks[s->chunk_head];
        t = c->pts + (double)(s->read - c->first) / s->spec.freq;
        /* What was read last is still in the device's buffer. */
        t -= (double)s->spec.samples / s->spec.freq;
    }
    SDL_UnlockAudioDevice(s->device);
    return t;
}

void clv_sound_pause(clv_sound *s, int paused)
{
    SDL_PauseAudioDevice(s->device, paused);
}

void clv_sound_clear(clv_sound *s)
{
    SDL_LockAudioDevice(s->device);
    s->read = s->written;
    s->chunk_head = 0;
    s->chunk_count = 0;
    s->playing = 0;
    SDL_UnlockAudioDevice(s->device);
}

void clv_sound_set_volume(clv_sound *s, double volume, int muted)
{
    SDL_LockAudioDevice(s->device);
    s->volume = muted ? 0.0f : (float)volume;
    SDL_UnlockAudioDevice(s->device);
}
