/* lolwut.c -- LOLWUT [VERSION v] [...]: some computer art and the
 * version, as Redis 7.0 draws it.
 *
 * Redis gives each major version its own LOLWUT. 7.0 has none yet, so
 * plain LOLWUT (and any VERSION but 5 and 6) answers only the version
 * line. VERSION 5 draws Georg Nees's "Schotter" (1968): a column of
 * squares that tilt and drift more the lower they sit, in Braille
 * characters, each one a 2x4 block of dots. VERSION 6 draws a city
 * skyline in the four grays of a terminal, two rows of buildings behind
 * a row with lit windows.
 *
 * Where Redis draws from libc's rand(), seeded from the clock, I draw
 * from the server's seeded PRNG: the same picture for the same seed and
 * commands. The geometry is computed in the same mix of float and
 * double arithmetic, so a drawing with nothing random in it (a Schotter
 * of at most two rows) is redis-server's to the dot. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "server.h"

/* libc's RAND_MAX, the range of Redis's draws. */
#define LW_RAND_MAX 2147483647

/* A picture of width x height pixels, each a color (0 is no dot). */
typedef struct lwCanvas {
    int width, height;
    unsigned char *pixels;
    redisServer *srv;           /* whose memory and PRNG */
} lwCanvas;

/* A draw in [0, LW_RAND_MAX], as rand() gives. */
static int _rand(lwCanvas *cv) {
    return (int)(rngNext(cv->srv->denv.rng) >> 33);
}

/* Whether a drawing of width x height pixels, rendered at out_per_pixel
 * bytes a pixel (twice over: the text and the reply), fits under the
 * host's heap limit. Redis would draw the largest one (an 800 MB canvas
 * for VERSION 5 1000 1 200); a browser tab cannot, and is told so. */
static int _fits(client *c, size_t width, size_t height,
                 double out_per_pixel) {
    redisServer *s = c->srv;
    double need = (double)width * (double)height * (1 + 2 * out_per_pixel);
    if (!s->heap_limit ||
        (double)memTotalUsed(s->mem) + need <= (double)s->heap_limit)
        return 1;
    addReplyError(c, "-OOM command not allowed when used memory > "
                  "'maxmemory'.");
    return 0;
}

static void _canvasInit(lwCanvas *cv, redisServer *s, int width, int height,
                        int bg) {
    cv->srv = s;
    cv->width = width;
    cv->height = height;
    cv->pixels = memAlloc(s->mem, (size_t)width * (size_t)height + 1);
    memset(cv->pixels, bg, (size_t)width * (size_t)height);
}

static void _canvasFree(lwCanvas *cv) {
    memFree(cv->srv->mem, cv->pixels);
}

/* Sets a pixel; one outside the canvas is ignored. */
static void _setPixel(lwCanvas *cv, int x, int y, int color) {
    if (x < 0 || x >= cv->width || y < 0 || y >= cv->height) return;
    cv->pixels[x + y * cv->width] = (unsigned char)color;
}

/* A pixel's color; 0 outside the canvas. */
static int _getPixel(const lwCanvas *cv, int x, int y) {
    if (x < 0 || x >= cv->width || y < 0 || y >= cv->height) return 0;
    return cv->pixels[x + y * cv->width];
}

/* Bresenham's line from (x1,y1) to (x2,y2), both ends included. */
static void _line(lwCanvas *cv, int x1, int y1, int x2, int y2) {
    int dx = x2 > x1 ? x2 - x1 : x1 - x2;
    int dy = y2 > y1 ? y2 - y1 : y1 - y2;
    int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    for (;;) {
        _setPixel(cv, x1, y1, 1);
        if (x1 == x2 && y1 == y2) return;
        int e2 = err * 2;
        if (e2 > -dy) { err -= dy; x1 += sx; }
        if (e2 < dx) { err += dx; y1 += sy; }
    }
}

/* A square of side `side` centred on (x,y), turned by `angle` radians.
 * Its corners lie on a circle: starting at 45 degrees plus the angle,
 * each next corner is 90 degrees on, at (sin k, cos k) times the radius,
 * which for a square of side 1 is 1/sqrt(2). Side, radius and angle are
 * floats as in Redis; sin and cos are taken in double precision. */
static void _square(lwCanvas *cv, int x, int y, float side, float angle) {
    int px[4], py[4];
    float radius = side / 1.4142135623;
    radius = roundf(radius);
    float k = (float)(M_PI / 4 + angle);
    for (int j = 0; j < 4; j++) {
        px[j] = (int)round(sin(k) * radius + x);
        py[j] = (int)round(cos(k) * radius + y);
        k = (float)(k + M_PI / 2);
    }
    for (int j = 0; j < 4; j++)
        _line(cv, px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4]);
}

/* A signed random fraction of y/rows: how far a square of row y drifts. */
static float _drift(lwCanvas *cv, int rows, int y) {
    return (float)_rand(cv) / (float)LW_RAND_MAX / (float)rows * (float)y;
}

/* Schotter on a canvas cols*2 dots wide, 2 dots of margin: rows of
 * squares, the first two straight, each lower one turned and shifted by
 * up to y/rows of a radian and of a third of its side. */
static void _schotter(lwCanvas *cv, redisServer *s, int cols, int per_row,
                      int per_col) {
    int width = cols * 2;
    int pad = width > 4 ? 2 : 0;
    float side = (float)(width - pad * 2) / (float)per_row;
    int height = (int)(side * (float)per_col + (float)(pad * 2));
    _canvasInit(cv, s, width, height, 0);
    for (int y = 0; y < per_col; y++) {
        for (int x = 0; x < per_row; x++) {
            int sx = (int)((float)x * side + side / 2 + (float)pad);
            int sy = (int)((float)y * side + side / 2 + (float)pad);
            float angle = 0;
            if (y > 1) {
                float r1 = _drift(cv, per_col, y);
                float r2 = _drift(cv, per_col, y);
                float r3 = _drift(cv, per_col, y);
                if (_rand(cv) % 2) r1 = -r1;
                if (_rand(cv) % 2) r2 = -r2;
                if (_rand(cv) % 2) r3 = -r3;
                angle = r1;
                sx = (int)((float)sx + r2 * side / 3);
                sy = (int)((float)sy + r3 * side / 3);
            }
            _square(cv, sx, sy, side, angle);
        }
    }
}

/* The Braille character of the 2x4 block at (x,y): dots 1-3 down the
 * left column, 4-6 down the right, 7 and 8 the bottom row, as bits 0-7
 * of U+2800 + bits, in UTF-8. */
static sds _braille(sds out, const lwCanvas *cv, int x, int y) {
    static const int dx[8] = { 0, 0, 0, 1, 1, 1, 0, 1 };
    static const int dy[8] = { 0, 1, 2, 0, 1, 2, 3, 3 };
    int bits = 0;
    for (int b = 0; b < 8; b++)
        if (_getPixel(cv, x + dx[b], y + dy[b])) bits |= 1 << b;
    int code = 0x2800 + bits;
    char utf8[3] = { (char)(0xE0 | (code >> 12)),
                     (char)(0x80 | ((code >> 6) & 0x3F)),
                     (char)(0x80 | (code & 0x3F)) };
    return sdscatlen(cv->srv->mem, out, utf8, 3);
}

/* The canvas in Braille, a line per 4 rows of dots, each line ended by a
 * newline unless its first row is the canvas's last (as Redis does). */
static sds _renderBraille(const lwCanvas *cv) {
    sds out = sdsempty(cv->srv->mem);
    for (int y = 0; y < cv->height; y += 4) {
        for (int x = 0; x < cv->width; x += 2) out = _braille(out, cv, x, y);
        if (y != cv->height - 1) out = sdscatlen(cv->srv->mem, out, "\n", 1);
    }
    return out;
}

/* LOLWUT VERSION 5 [cols [squares-per-row [squares-per-col]]]: 66, 8 and
 * 12 by default, held to 1..1000, 1..200 and 1..200. */
static void _lolwut5(client *c, robj **argv, int argc) {
    long long arg[3] = { 66, 8, 12 };
    static const long long max[3] = { 1000, 200, 200 };
    for (int j = 0; j < 3; j++) {
        if (argc > j + 1 &&
            getLongFromObjectOrReply(c, argv[j + 1], &arg[j], NULL) != C_OK)
            return;
        if (arg[j] < 1) arg[j] = 1;
        if (arg[j] > max[j]) arg[j] = max[j];
    }
    int width = (int)arg[0] * 2, pad = width > 4 ? 2 : 0;
    double side = (double)(width - pad * 2) / (double)arg[1];
    if (!_fits(c, (size_t)width, (size_t)(side * (double)arg[2]) + 4, 0.375))
        return;
    lwCanvas cv;
    _schotter(&cv, c->srv, (int)arg[0], (int)arg[1], (int)arg[2]);
    sds out = _renderBraille(&cv);
    out = sdscat(c->srv->mem, out, "\nGeorg Nees - schotter, plotter on "
                 "paper, 1968. Redis ver. " REDIS_VERSION "\n");
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(c->srv->mem, out);
    _canvasFree(&cv);
}

/* A building: its left edge, width and height in pixels, its color, and
 * whether it has windows. */
typedef struct lwBuilding {
    int x, width, height, color, windows;
} lwBuilding;

/* The color of a window pixel at (x,y) of building b: one of the two
 * grays other than the building's, drawn at random for the window's left
 * pixel, the same for its right one. Windows are 2 pixels wide and 1 tall
 * (a terminal cell is twice as tall as wide), on every other row and
 * every other pair of columns, away from the walls and the roof. */
static int _windowColor(lwCanvas *cv, const lwBuilding *b, int x, int y,
                        int top, int color) {
    int bottom = cv->height - 1;
    if (!b->windows || x <= b->x + 1 || x >= b->x + b->width - 2 ||
        y <= top + 1 || y >= bottom - 1)
        return color;
    int relx = x - (b->x + 1), rely = y - (top + 1);
    if (!(relx / 2 % 2 && rely % 2)) return color;
    int w;
    do w = 1 + _rand(cv) % 2; while (w == b->color);
    return relx % 2 ? _getPixel(cv, x - 1, y) : w;
}

/* Draws b from the bottom row up; the roof row is 4 pixels narrower. */
static void _building(lwCanvas *cv, const lwBuilding *b) {
    int bottom = cv->height - 1, top = bottom - b->height + 1;
    for (int y = bottom; y >= top; y--) {
        for (int x = b->x; x < b->x + b->width; x++) {
            if (y == top && (x <= b->x + 1 || x >= b->x + b->width - 2))
                continue;
            _setPixel(cv, x, y, _windowColor(cv, b, x, y, top, b->color));
        }
    }
}

/* The skyline on a white sky: a row of light gray buildings overlapping
 * by half, a row of dark gray ones in front, then black ones with
 * windows, each row from 10 pixels left of the canvas to its right edge
 * with random gaps. */
static void _skyline(lwCanvas *cv) {
    lwBuilding b;
    int h = cv->height;
    for (int color = 2; color >= 1; color--) {
        b.color = color;
        b.windows = 0;
        for (int x = -10; x < cv->width;) {
            x += _rand(cv) % 8;
            b.x = x;
            b.width = 10 + _rand(cv) % 9;
            b.height = h / 2 + _rand(cv) % h / (color == 2 ? 2 : 3);
            _building(cv, &b);
            x += color == 2 ? b.width / 2 : b.width + 1;
        }
    }
    b.color = 0;
    b.windows = 1;
    for (int x = -10; x < cv->width;) {
        x += _rand(cv) % 8;
        b.x = x;
        b.width = 5 + _rand(cv) % 14;
        if (b.width % 4) b.width += b.width % 3;
        b.height = h / 3 + _rand(cv) % h / 2;
        _building(cv, &b);
        x += b.width + 5;
    }
}

/* The canvas as terminal cells, a space on a background of the pixel's
 * gray (foreground set too, for terminals that differ), rows joined by
 * newlines. */
static sds _renderGrays(const lwCanvas *cv) {
    static const char *const gray[4] = {
        "0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m" };
    sds out = sdsempty(cv->srv->mem);
    for (int y = 0; y < cv->height; y++) {
        for (int x = 0; x < cv->width; x++) {
            int color = _getPixel(cv, x, y);
            out = sdscatprintf(cv->srv->mem, out, "\033[%s \033[0m",
                               gray[color & 3]);
        }
        if (y != cv->height - 1) out = sdscatlen(cv->srv->mem, out, "\n", 1);
    }
    return out;
}

/* LOLWUT VERSION 6 [cols [rows]]: 80 and 20 by default, each held to
 * 1..1000. */
static void _lolwut6(client *c, robj **argv, int argc) {
    long long arg[2] = { 80, 20 };
    for (int j = 0; j < 2; j++) {
        if (argc > j + 1 &&
            getLongFromObjectOrReply(c, argv[j + 1], &arg[j], NULL) != C_OK)
            return;
        if (arg[j] < 1) arg[j] = 1;
        if (arg[j] > 1000) arg[j] = 1000;
    }
    if (!_fits(c, (size_t)arg[0], (size_t)arg[1], 22)) return;
    lwCanvas cv;
    _canvasInit(&cv, c->srv, (int)arg[0], (int)arg[1], 3);
    _skyline(&cv);
    sds out = _renderGrays(&cv);
    out = sdscat(c->srv->mem, out, "\nDedicated to the 8 bit game developers "
                 "of past and present.\nOriginal 8 bit image from Plaguemon "
                 "by hikikomori. Redis ver. " REDIS_VERSION "\n");
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(c->srv->mem, out);
    _canvasFree(&cv);
}

/* LOLWUT [VERSION v] [...]. The drawing is picked by the version string:
 * Redis's own ("7.0.15") or "v.0.0" for VERSION v (v cut to 32 bits
 * unsigned, as Redis prints it). 5.x and 4.9 draw Schotter, 6.x and 5.9
 * the skyline, the rest nothing but the version line. The drawings take
 * the arguments after VERSION v. */
void lolwutCommand(client *c) {
    const char *v = REDIS_VERSION;
    char verstr[32];
    robj **argv = c->argv;
    int argc = c->argc;
    if (argc >= 3 && !strcasecmp(argv[1]->v.ptr, "version")) {
        long long ver;
        if (getLongFromObjectOrReply(c, argv[2], &ver, NULL) != C_OK) return;
        snprintf(verstr, sizeof(verstr), "%u.0.0", (unsigned int)ver);
        v = verstr;
        argv += 2;
        argc -= 2;
    }
    if ((v[0] == '5' && v[1] == '.' && v[2] != '9') ||
        (v[0] == '4' && v[1] == '.' && v[2] == '9')) {
        _lolwut5(c, argv, argc);
    } else if ((v[0] == '6' && v[1] == '.' && v[2] != '9') ||
               (v[0] == '5' && v[1] == '.' && v[2] == '9')) {
        _lolwut6(c, argv, argc);
    } else {
        static const char line[] = "Redis ver. " REDIS_VERSION "\n";
        addReplyVerbatim(c, line, sizeof(line) - 1, "txt");
    }
}
