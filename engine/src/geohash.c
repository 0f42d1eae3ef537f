/* geohash.c -- positions as interleaved integers, the nine cells that
 * cover a search, and distances on the sphere, with Redis 7.0's
 * arithmetic to the last bit: a score, a cell boundary or a distance
 * computed here is the double Redis computes, so searches find the same
 * members and replies print the same digits.
 *
 * A coordinate becomes an integer by scaling its offset in its range to
 * 2^step and truncating. Interleaving the latitude's bits (even
 * positions) with the longitude's (odd) makes nearby points share a
 * prefix, so every point of a cell is one interval of scores: the cell's
 * bits followed by anything. A search picks a step whose cells are
 * about as large as its radius, so the centre's cell and its eight
 * neighbours cover the whole shape, and reads nine score intervals. */
#include <math.h>
#include "geohash.h"

/* Redis's constants: degrees to radians as pi / 180, and the Earth's
 * quadratic mean radius for WGS-84. */
#define GEO_PI 3.14159265358979323846
#define GEO_D_R (GEO_PI / 180.0)
#define GEO_EARTH_RADIUS 6372797.560856
#define GEO_MERCATOR_MAX 20037726.37

static double _degRad(double deg) { return deg * GEO_D_R; }
static double _radDeg(double rad) { return rad / GEO_D_R; }

/* Spreads the 32 bits of v over the even bits of a 64-bit word, by the
 * usual halving masks: each step moves the upper half of every group
 * apart from the lower. */
static uint64_t _spread(uint32_t v) {
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
}

/* The inverse of _spread: gathers the even bits of x into 32. */
static uint32_t _gather(uint64_t x) {
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

static uint64_t _interleave(uint32_t lat, uint32_t lon) {
    return _spread(lat) | (_spread(lon) << 1);
}

static int _rangeZero(const geoHashRange *r) {
    return r->min == 0 && r->max == 0;
}

/* Encodes lon, lat as a cell of step bits per coordinate within the
 * given ranges. Returns 1, or 0 if the step is out of 1..32 or the
 * point is outside the ranges or the indexable limits. */
int geohashEncode(const geoHashRange *lon_range,
                  const geoHashRange *lat_range, double lon, double lat,
                  uint8_t step, geoHashBits *hash) {
    if (step == 0 || step > 32 || _rangeZero(lat_range) ||
        _rangeZero(lon_range))
        return 0;
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN ||
        lat > GEO_LAT_MAX || lat < GEO_LAT_MIN)
        return 0;
    hash->bits = 0;
    hash->step = step;
    if (lat < lat_range->min || lat > lat_range->max ||
        lon < lon_range->min || lon > lon_range->max)
        return 0;
    double lat_off = (lat - lat_range->min) /
                     (lat_range->max - lat_range->min);
    double lon_off = (lon - lon_range->min) /
                     (lon_range->max - lon_range->min);
    lat_off *= (double)(1ULL << step);
    lon_off *= (double)(1ULL << step);
    hash->bits = _interleave((uint32_t)lat_off, (uint32_t)lon_off);
    return 1;
}

/* The ranges every score is encoded in. */
static void _rangesWGS84(geoHashRange *lon, geoHashRange *lat) {
    lon->min = GEO_LONG_MIN;
    lon->max = GEO_LONG_MAX;
    lat->min = GEO_LAT_MIN;
    lat->max = GEO_LAT_MAX;
}

/* Encodes lon, lat within the indexable ranges. Returns 1, or 0. */
int geohashEncodeWGS84(double lon, double lat, uint8_t step,
                       geoHashBits *hash) {
    geoHashRange rlon, rlat;
    _rangesWGS84(&rlon, &rlat);
    return geohashEncode(&rlon, &rlat, lon, lat, step, hash);
}

/* The rectangle of cell hash within the ranges. Returns 1, or 0 for a
 * zero cell. */
static int _decode(const geoHashRange *lon_range,
                   const geoHashRange *lat_range, geoHashBits hash,
                   geoHashArea *area) {
    if ((hash.bits == 0 && hash.step == 0) || _rangeZero(lat_range) ||
        _rangeZero(lon_range))
        return 0;
    area->hash = hash;
    uint32_t ilat = _gather(hash.bits), ilon = _gather(hash.bits >> 1);
    double lat_scale = lat_range->max - lat_range->min;
    double lon_scale = lon_range->max - lon_range->min;
    double cells = (double)(1ULL << hash.step);
    area->lat.min = lat_range->min + (ilat * 1.0 / cells) * lat_scale;
    area->lat.max = lat_range->min + ((ilat + 1) * 1.0 / cells) * lat_scale;
    area->lon.min = lon_range->min + (ilon * 1.0 / cells) * lon_scale;
    area->lon.max = lon_range->min + ((ilon + 1) * 1.0 / cells) * lon_scale;
    return 1;
}

/* The rectangle of cell hash in the indexable ranges. Returns 1, or 0. */
int geohashDecodeWGS84(geoHashBits hash, geoHashArea *area) {
    geoHashRange rlon, rlat;
    _rangesWGS84(&rlon, &rlat);
    return _decode(&rlon, &rlat, hash, area);
}

static double _clamp(double v, double min, double max) {
    return v > max ? max : v < min ? min : v;
}

/* The centre of cell hash as xy (longitude, latitude), kept within the
 * indexable limits. Returns 1, or 0 for a zero cell. */
int geohashDecodeToLonLat(geoHashBits hash, double *xy) {
    geoHashArea area;
    if (!geohashDecodeWGS84(hash, &area)) return 0;
    xy[0] = _clamp((area.lon.min + area.lon.max) / 2,
                   GEO_LONG_MIN, GEO_LONG_MAX);
    xy[1] = _clamp((area.lat.min + area.lat.max) / 2,
                   GEO_LAT_MIN, GEO_LAT_MAX);
    return 1;
}

/* The position a sorted set score holds (a 52-bit cell). */
int geohashDecodeScore(double score, double *xy) {
    geoHashBits hash = { (uint64_t)score, GEO_STEP_MAX };
    return geohashDecodeToLonLat(hash, xy);
}

/* The cell's bits as the 52-bit score prefix they are: the smallest
 * score of a point inside it. */
uint64_t geohashAlign52Bits(geoHashBits hash) {
    return hash.bits << (52 - hash.step * 2);
}

/* The cell dlon columns east and dlat rows north of hash (each -1, 0 or
 * 1), wrapping around at the ends of the step's grid. */
static geoHashBits _move(geoHashBits hash, int dlon, int dlat) {
    uint64_t mask = hash.step >= 32 ? 0xFFFFFFFFULL
                                    : (1ULL << hash.step) - 1;
    uint32_t ilat = _gather(hash.bits), ilon = _gather(hash.bits >> 1);
    ilat = (uint32_t)(((uint64_t)ilat + (uint64_t)(int64_t)dlat) & mask);
    ilon = (uint32_t)(((uint64_t)ilon + (uint64_t)(int64_t)dlon) & mask);
    hash.bits = _interleave(ilat, ilon);
    return hash;
}

/* The step whose cells are about as wide as range_meters at latitude
 * lat: double the range until it spans the Mercator world, back off two
 * steps so the cell is larger than the range, and one or two more near
 * the poles, where meridians converge. 26 for a zero range. */
static int _stepsForRadius(double range_meters, double lat) {
    if (range_meters == 0) return 26;
    int step = 1;
    while (range_meters < GEO_MERCATOR_MAX) {
        range_meters *= 2;
        step++;
    }
    step -= 2;
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80) step--;
    }
    if (step < 1) step = 1;
    if (step > 26) step = 26;
    return step;
}

/* Fills shape->bounds with the shape's limits in degrees. The latitude
 * spread is the same at both edges; the longitude spread grows toward
 * the pole, so the box takes the edge nearer the pole (the northern in
 * the northern hemisphere, the southern in the southern). */
static void _boundingBox(geoShape *shape) {
    double lon = shape->xy[0], lat = shape->xy[1];
    int circle = shape->type == GEO_SHAPE_CIRCLE;
    double height = shape->conversion *
                    (circle ? shape->radius : shape->height / 2);
    double width = shape->conversion *
                   (circle ? shape->radius : shape->width / 2);
    double lat_delta = _radDeg(height / GEO_EARTH_RADIUS);
    double lon_delta_top =
        _radDeg(width / GEO_EARTH_RADIUS / cos(_degRad(lat + lat_delta)));
    double lon_delta_bottom =
        _radDeg(width / GEO_EARTH_RADIUS / cos(_degRad(lat - lat_delta)));
    double lon_delta = lat < 0 ? lon_delta_bottom : lon_delta_top;
    shape->bounds[0] = lon - lon_delta;
    shape->bounds[1] = lat - lat_delta;
    shape->bounds[2] = lon + lon_delta;
    shape->bounds[3] = lat + lat_delta;
}

/* Puts the centre cell of lon, lat at step and its neighbours in boxes
 * (GEO_BOX_* order) and the centre's rectangle in *area. */
static void _boxesAt(double lon, double lat, int step,
                     geoHashBits boxes[GEO_BOXES], geoHashArea *area) {
    static const int dir[GEO_BOXES][2] = {
        { 0, 0 }, { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 },
        { 1, 1 }, { -1, 1 }, { 1, -1 }, { -1, -1 }
    };
    geohashEncodeWGS84(lon, lat, (uint8_t)step, &boxes[0]);
    for (int i = 1; i < GEO_BOXES; i++)
        boxes[i] = _move(boxes[0], dir[i][0], dir[i][1]);
    geohashDecodeWGS84(boxes[0], area);
}

static void _zeroBoxes(geoHashBits boxes[GEO_BOXES], int a, int b, int c) {
    boxes[a].bits = boxes[b].bits = boxes[c].bits = 0;
    boxes[a].step = boxes[b].step = boxes[c].step = 0;
}

/* Fills boxes with the nine cells (GEO_BOX_* order) that cover shape,
 * and shape->bounds with its limits. The step comes from the radius (for
 * a box, the distance from its centre to a corner); if a side neighbour
 * does not reach the shape's edge, the step is one coarser. Then the
 * neighbours on a side the centre cell already covers past the shape's
 * edge are dropped (zeroed), as they hold nothing the shape reaches. */
void geohashSearchBoxes(geoShape *shape, geoHashBits boxes[GEO_BOXES]) {
    geoHashArea area, n, s, e, w;
    _boundingBox(shape);
    double min_lon = shape->bounds[0], min_lat = shape->bounds[1];
    double max_lon = shape->bounds[2], max_lat = shape->bounds[3];
    double lon = shape->xy[0], lat = shape->xy[1];
    double radius = shape->type == GEO_SHAPE_CIRCLE ? shape->radius :
        sqrt((shape->width / 2) * (shape->width / 2) +
             (shape->height / 2) * (shape->height / 2));
    radius *= shape->conversion;
    int step = _stepsForRadius(radius, lat);
    _boxesAt(lon, lat, step, boxes, &area);
    geohashDecodeWGS84(boxes[GEO_BOX_NORTH], &n);
    geohashDecodeWGS84(boxes[GEO_BOX_SOUTH], &s);
    geohashDecodeWGS84(boxes[GEO_BOX_EAST], &e);
    geohashDecodeWGS84(boxes[GEO_BOX_WEST], &w);
    int coarser = n.lat.max < max_lat || s.lat.min > min_lat ||
                  e.lon.max < max_lon || w.lon.min > min_lon;
    if (step > 1 && coarser) _boxesAt(lon, lat, --step, boxes, &area);
    if (step < 2) return;
    if (area.lat.min < min_lat)
        _zeroBoxes(boxes, GEO_BOX_SOUTH, GEO_BOX_SOUTH_WEST,
                   GEO_BOX_SOUTH_EAST);
    if (area.lat.max > max_lat)
        _zeroBoxes(boxes, GEO_BOX_NORTH, GEO_BOX_NORTH_EAST,
                   GEO_BOX_NORTH_WEST);
    if (area.lon.min < min_lon)
        _zeroBoxes(boxes, GEO_BOX_WEST, GEO_BOX_SOUTH_WEST,
                   GEO_BOX_NORTH_WEST);
    if (area.lon.max > max_lon)
        _zeroBoxes(boxes, GEO_BOX_EAST, GEO_BOX_SOUTH_EAST,
                   GEO_BOX_NORTH_EAST);
}

/* The distance along a meridian between two latitudes, in metres. */
static double _latDistance(double lat1, double lat2) {
    return GEO_EARTH_RADIUS * fabs(_degRad(lat2) - _degRad(lat1));
}

/* The great-circle distance in metres by the haversine formula. When the
 * longitudes give a zero sine the formula reduces to the meridian
 * distance, which is computed directly, as Redis does (the two differ in
 * the last bits). */
double geohashDistance(double lon1, double lat1, double lon2, double lat2) {
    double v = sin((_degRad(lon2) - _degRad(lon1)) / 2);
    if (v == 0.0) return _latDistance(lat1, lat2);
    double lat1r = _degRad(lat1), lat2r = _degRad(lat2);
    double u = sin((lat2r - lat1r) / 2);
    double a = u * u + cos(lat1r) * cos(lat2r) * v * v;
    return 2.0 * GEO_EARTH_RADIUS * asin(sqrt(a));
}

/* Returns 1 if lon, lat is inside shape, setting *distance to its
 * distance from the centre; 0 if not. A box is tested as Redis does: the
 * meridian distance against half the height first (the cheap test),
 * then the distance along the point's parallel against half the width. */
int geohashInShape(const geoShape *shape, double lon, double lat,
                   double *distance) {
    double cx = shape->xy[0], cy = shape->xy[1];
    if (shape->type == GEO_SHAPE_CIRCLE) {
        *distance = geohashDistance(cx, cy, lon, lat);
        return *distance <= shape->radius * shape->conversion;
    }
    double width = shape->width * shape->conversion;
    double height = shape->height * shape->conversion;
    if (_latDistance(lat, cy) > height / 2) return 0;
    if (geohashDistance(lon, lat, cx, lat) > width / 2) return 0;
    *distance = geohashDistance(cx, cy, lon, lat);
    return 1;
}
