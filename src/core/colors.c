/* colors.c - ffmpeg's colour syntax (libavutil's av_parse_color): its
 * table of names, hexadecimal RGB[A] and an "@alpha" suffix, for the
 * COLOR parameters (pad's color, rotate's fillcolor). */
#include "clvid_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* libavutil/parseutils.c's color_table (FFmpeg 5.1), sorted by name as
 * its bsearch needs (compared case-insensitively). */
static const struct {
    const char *name;
    uint32_t rgb;
} names[] = {
    {"AliceBlue", 0xF0F8FFu},
    {"AntiqueWhite", 0xFAEBD7u},
    {"Aqua", 0x00FFFFu},
    {"Aquamarine", 0x7FFFD4u},
    {"Azure", 0xF0FFFFu},
    {"Beige", 0xF5F5DCu},
    {"Bisque", 0xFFE4C4u},
    {"Black", 0x000000u},
    {"BlanchedAlmond", 0xFFEBCDu},
    {"Blue", 0x0000FFu},
    {"BlueViolet", 0x8A2BE2u},
    {"Brown", 0xA52A2Au},
    {"BurlyWood", 0xDEB887u},
    {"CadetBlue", 0x5F9EA0u},
    {"Chartreuse", 0x7FFF00u},
    {"Chocolate", 0xD2691Eu},
    {"Coral", 0xFF7F50u},
    {"CornflowerBlue", 0x6495EDu},
    {"Cornsilk", 0xFFF8DCu},
    {"Crimson", 0xDC143Cu},
    {"Cyan", 0x00FFFFu},
    {"DarkBlue", 0x00008Bu},
    {"DarkCyan", 0x008B8Bu},
    {"DarkGoldenRod", 0xB8860Bu},
    {"DarkGray", 0xA9A9A9u},
    {"DarkGreen", 0x006400u},
    {"DarkKhaki", 0xBDB76Bu},
    {"DarkMagenta", 0x8B008Bu},
    {"DarkOliveGreen", 0x556B2Fu},
    {"Darkorange", 0xFF8C00u},
    {"DarkOrchid", 0x9932CCu},
    {"DarkRed", 0x8B0000u},
    {"DarkSalmon", 0xE9967Au},
    {"DarkSeaGreen", 0x8FBC8Fu},
    {"DarkSlateBlue", 0x483D8Bu},
    {"DarkSlateGray", 0x2F4F4Fu},
    {"DarkTurquoise", 0x00CED1u},
    {"DarkViolet", 0x9400D3u},
    {"DeepPink", 0xFF1493u},
    {"DeepSkyBlue", 0x00BFFFu},
    {"DimGray", 0x696969u},
    {"DodgerBlue", 0x1E90FFu},
    {"FireBrick", 0xB22222u},
    {"FloralWhite", 0xFFFAF0u},
    {"ForestGreen", 0x228B22u},
    {"Fuchsia", 0xFF00FFu},
    {"Gainsboro", 0xDCDCDCu},
    {"GhostWhite", 0xF8F8FFu},
    {"Gold", 0xFFD700u},
    {"GoldenRod", 0xDAA520u},
    {"Gray", 0x808080u},
    {"Green", 0x008000u},
    {"GreenYellow", 0xADFF2Fu},
    {"HoneyDew", 0xF0FFF0u},
    {"HotPink", 0xFF69B4u},
    {"IndianRed", 0xCD5C5Cu},
    {"Indigo", 0x4B0082u},
    {"Ivory", 0xFFFFF0u},
    {"Khaki", 0xF0E68Cu},
    {"Lavender", 0xE6E6FAu},
    {"LavenderBlush", 0xFFF0F5u},
    {"LawnGreen", 0x7CFC00u},
    {"LemonChiffon", 0xFFFACDu},
    {"LightBlue", 0xADD8E6u},
    {"LightCoral", 0xF08080u},
    {"LightCyan", 0xE0FFFFu},
    {"LightGoldenRodYellow", 0xFAFAD2u},
    {"LightGreen", 0x90EE90u},
    {"LightGrey", 0xD3D3D3u},
    {"LightPink", 0xFFB6C1u},
    {"LightSalmon", 0xFFA07Au},
    {"LightSeaGreen", 0x20B2AAu},
    {"LightSkyBlue", 0x87CEFAu},
    {"LightSlateGray", 0x778899u},
    {"LightSteelBlue", 0xB0C4DEu},
    {"LightYellow", 0xFFFFE0u},
    {"Lime", 0x00FF00u},
    {"LimeGreen", 0x32CD32u},
    {"Linen", 0xFAF0E6u},
    {"Magenta", 0xFF00FFu},
    {"Maroon", 0x800000u},
    {"MediumAquaMarine", 0x66CDAAu},
    {"MediumBlue", 0x0000CDu},
    {"MediumOrchid", 0xBA55D3u},
    {"MediumPurple", 0x9370D8u},
    {"MediumSeaGreen", 0x3CB371u},
    {"MediumSlateBlue", 0x7B68EEu},
    {"MediumSpringGreen", 0x00FA9Au},
    {"MediumTurquoise", 0x48D1CCu},
    {"MediumVioletRed", 0xC71585u},
    {"MidnightBlue", 0x191970u},
    {"MintCream", 0xF5FFFAu},
    {"MistyRose", 0xFFE4E1u},
    {"Moccasin", 0xFFE4B5u},
    {"NavajoWhite", 0xFFDEADu},
    {"Navy", 0x000080u},
    {"OldLace", 0xFDF5E6u},
    {"Olive", 0x808000u},
    {"OliveDrab", 0x6B8E23u},
    {"Orange", 0xFFA500u},
    {"OrangeRed", 0xFF4500u},
    {"Orchid", 0xDA70D6u},
    {"PaleGoldenRod", 0xEEE8AAu},
    {"PaleGreen", 0x98FB98u},
    {"PaleTurquoise", 0xAFEEEEu},
    {"PaleVioletRed", 0xD87093u},
    {"PapayaWhip", 0xFFEFD5u},
    {"PeachPuff", 0xFFDAB9u},
    {"Peru", 0xCD853Fu},
    {"Pink", 0xFFC0CBu},
    {"Plum", 0xDDA0DDu},
    {"PowderBlue", 0xB0E0E6u},
    {"Purple", 0x800080u},
    {"Red", 0xFF0000u},
    {"RosyBrown", 0xBC8F8Fu},
    {"RoyalBlue", 0x4169E1u},
    {"SaddleBrown", 0x8B4513u},
    {"Salmon", 0xFA8072u},
    {"SandyBrown", 0xF4A460u},
    {"SeaGreen", 0x2E8B57u},
    {"SeaShell", 0xFFF5EEu},
    {"Sienna", 0xA0522Du},
    {"Silver", 0xC0C0C0u},
    {"SkyBlue", 0x87CEEBu},
    {"SlateBlue", 0x6A5ACDu},
    {"SlateGray", 0x708090u},
    {"Snow", 0xFFFAFAu},
    {"SpringGreen", 0x00FF7Fu},
    {"SteelBlue", 0x4682B4u},
    {"Tan", 0xD2B48Cu},
    {"Teal", 0x008080u},
    {"Thistle", 0xD8BFD8u},
    {"Tomato", 0xFF6347u},
    {"Turquoise", 0x40E0D0u},
    {"Violet", 0xEE82EEu},
    {"Wheat", 0xF5DEB3u},
    {"White", 0xFFFFFFu},
    {"WhiteSmoke", 0xF5F5F5u},
    {"Yellow", 0xFFFF00u},
    {"YellowGreen", 0x9ACD32u},
};

int clv__color_parse(const char *text, uint32_t *rgba, clv_msg *msg)
{
    char s[128], shown[48];
    int hex = text[0] == '#' ? 1 : !strncmp(text, "0x", 2) ? 2 : 0;
    if (strlen(text + hex) >= sizeof s)
        return clv__fail(msg, CLV_EPARSE, "'%s' is not a colour (too long)",
                         clv__clip(text, shown, sizeof shown));
    snprintf(s, sizeof s, "%s", text + hex);
    char *alpha = strchr(s, '@');
    if (alpha)
        *alpha++ = 0;
    size_t len = strlen(s);
    uint32_t rgb = 0, a = 255;
    if (!strcasecmp(s, "random") || !strcasecmp(s, "bikeshed"))
        return clv__fail(msg, CLV_EPARSE,
                         "'%s': a random colour would differ from run to run; give one "
                         "(a name, 0xRRGGBB or #RRGGBB)",
                         clv__clip(text, shown, sizeof shown));
    if (hex || (len && strspn(s, "0123456789ABCDEFabcdef") == len)) {
        char *end;
        unsigned long v = strtoul(s, &end, 16);
        if (*end || (len != 6 && len != 8) || s[0] == '-' || s[0] == '+')
            return clv__fail(msg, CLV_EPARSE,
                             "'%s' is not a colour: hexadecimal colours are 0xRRGGBB or "
                             "0xRRGGBBAA (6 or 8 digits)",
                             clv__clip(text, shown, sizeof shown));
        if (len == 8) {
            a = (uint32_t)(v & 0xFF);
            v >>= 8;
        }
        rgb = (uint32_t)v & 0xFFFFFF;
    } else {
        int lo = 0, hi = (int)(sizeof names / sizeof names[0]) - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2, c = strcasecmp(s, names[mid].name);
            if (!c) {
                found = mid;
                break;
            }
            if (c < 0)
                hi = mid - 1;
            else
                lo = mid + 1;
        }
        if (found < 0)
            return clv__fail(msg, CLV_EPARSE,
                             "'%s' is not a colour: not one of ffmpeg's names (black, white, "
                             "red, AliceBlue... see `ffmpeg -colors`), nor 0xRRGGBB[AA]",
                             clv__clip(text, shown, sizeof shown));
        rgb = names[found].rgb;
    }
    if (alpha) {
        char *end;
        double v;
        if (!strncmp(alpha, "0x", 2))
            v = (double)strtoul(alpha, &end, 16);
        else {
            double norm = strtod(alpha, &end);
            v = norm < 0.0 || norm > 1.0 ? 256 : 255 * norm;
        }
        if (end == alpha || *end || v > 255 || v < 0)
            return clv__fail(msg, CLV_EPARSE,
                             "'%s': the alpha after '@' is a number from 0 to 1 or 0x00 to 0xff",
                             clv__clip(text, shown, sizeof shown));
        a = (uint32_t)v; /* truncated, as ffmpeg stores it into a byte */
    }
    *rgba = rgb << 8 | a;
    return 0;
}
