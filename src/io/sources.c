/* sources.c - the capture devices and what each offers (`clvid
 * sources`). Cameras through the V4L2 enumeration ioctls (formats, sizes,
 * frame rates); other inputs (sound, screen) through libavdevice. */
#include "clvid/pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>

static int xioctl(int fd, unsigned long request, void *arg)
{
    int r;
    do
        r = ioctl(fd, request, arg);
    while (r < 0 && errno == EINTR);
    return r;
}

/* "30, 15 fps" for one format and size. */
static void rates(int fd, uint32_t fourcc, uint32_t w, uint32_t h, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    struct v4l2_frmivalenum iv = {.pixel_format = fourcc, .width = w, .height = h};
    for (iv.index = 0; n < size && xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &iv) == 0; iv.index++) {
        if (iv.type == V4L2_FRMIVAL_TYPE_DISCRETE && iv.discrete.numerator)
            n += (size_t)snprintf(out + n, size - n, "%s%g", n ? ", " : "",
                                  (double)iv.discrete.denominator / iv.discrete.numerator);
        else if (iv.type != V4L2_FRMIVAL_TYPE_DISCRETE) {
            n += (size_t)snprintf(out + n, size - n, "%sany up to %g", n ? ", " : "",
                                  (double)iv.stepwise.min.denominator / iv.stepwise.min.numerator);
            break;
        }
    }
    if (n && n < size)
        snprintf(out + n, size - n, " fps");
}

static void camera(FILE *out, const char *path)
{
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) {
        fprintf(out, "%s: cannot open: %s\n", path, strerror(errno));
        return;
    }
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    if (xioctl(fd, VIDIOC_QUERYCAP, &cap) < 0 ||
        !((cap.device_caps ? cap.device_caps : cap.capabilities) & V4L2_CAP_VIDEO_CAPTURE)) {
        close(fd); /* a metadata or output node of the same camera */
        return;
    }
    fprintf(out, "%s  %s (%s)   clvid webcam %s\n", path, (const char *)cap.card,
            (const char *)cap.driver, path);
    struct v4l2_fmtdesc fmt = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    for (fmt.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &fmt) == 0; fmt.index++) {
        char name[5];
        for (int i = 0; i < 4; i++)
            name[i] = (char)((fmt.pixelformat >> (8 * i)) & 0xff);
        name[4] = 0;
        const char *ff = fmt.pixelformat == V4L2_PIX_FMT_MJPEG  ? "mjpeg"
                         : fmt.pixelformat == V4L2_PIX_FMT_YUYV ? "yuyv422"
                         : fmt.pixelformat == V4L2_PIX_FMT_H264 ? "h264"
                         : fmt.pixelformat == V4L2_PIX_FMT_NV12 ? "nv12"
                                                                : name;
        fprintf(out, "  --input-format %-8s %s\n", ff, (const char *)fmt.description);
        struct v4l2_frmsizeenum fs = {.pixel_format = fmt.pixelformat};
        for (fs.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &fs) == 0; fs.index++) {
            char list[256];
            if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
                rates(fd, fmt.pixelformat, fs.discrete.width, fs.discrete.height, list,
                      sizeof list);
                fprintf(out, "      %ux%u  %s\n", fs.discrete.width, fs.discrete.height, list);
            } else {
                fprintf(out, "      %ux%u to %ux%u\n", fs.stepwise.min_width,
                        fs.stepwise.min_height, fs.stepwise.max_width, fs.stepwise.max_height);
                break;
            }
        }
    }
    close(fd);
}

int clv_capture_sources_print(FILE *out)
{
    glob_t g;
    int cameras = 0;
    if (glob("/dev/video*", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            camera(out, g.gl_pathv[i]);
            cameras++;
        }
        globfree(&g);
    }
    if (!cameras)
        fprintf(out,
                "No camera (/dev/video*). A phone or another machine can be one: see "
                "docs/window.md (v4l2loopback, or a network stream with clvid play --live URL).\n");
    /* Other capture inputs libavdevice can list (sound cards for --audio, ...). */
    avdevice_register_all();
    const AVInputFormat *f = NULL;
    while ((f = av_input_audio_device_next(f))) {
        AVDeviceInfoList *list = NULL;
        if (avdevice_list_input_sources(f, NULL, NULL, &list) > 0) {
            for (int i = 0; i < list->nb_devices; i++)
                fprintf(out, "-f %s %s  %s\n", f->name, list->devices[i]->device_name,
                        list->devices[i]->device_description);
        }
        avdevice_free_list_devices(&list);
    }
    fprintf(out, "Screen: -f x11grab :0.0 (clvid play -f x11grab --live --input-size 1920x1080 "
                 ":0.0)\n");
    return 0;
}
