/* geohash.h -- the geohash arithmetic under the GEO commands (geo.c), as
 * Redis 7.0 does it: a position is two integers of `step` bits each, one
 * for the longitude and one for the latitude, interleaved into one
 * number, which at 26 bits each (52 in all) is exactly representable as
 * a sorted set score. A search covers its area with nine such cells of
 * a coarser step: the one holding the centre and its eight neighbours. */
#ifndef GK_GEOHASH_H
#define GK_GEOHASH_H

#include <stdint.h>

#define GEO_STEP_MAX 26             /* bits per coordinate in a score */
/* The coordinates a score can hold: Web Mercator's (EPSG:3857) limits,
 * so the poles cannot be indexed. */
#define GEO_LAT_MIN -85.05112878
#define GEO_LAT_MAX 85.05112878
#define GEO_LONG_MIN -180
#define GEO_LONG_MAX 180

/* Search shapes. */
#define GEO_SHAPE_CIRCLE 1
#define GEO_SHAPE_BOX 2

/* A cell: step bits per coordinate, latitude in the even bits and
 * longitude in the odd ones. A zero cell (bits and step 0) is a
 * neighbour the search leaves out. */
typedef struct geoHashBits {
    uint64_t bits;
    uint8_t step;
} geoHashBits;

/* An interval of one coordinate, in degrees. */
typedef struct geoHashRange {
    double min, max;
} geoHashRange;

/* The rectangle a cell covers. */
typedef struct geoHashArea {
    geoHashBits hash;
    geoHashRange lon, lat;
} geoHashArea;

/* The nine cells of a search, in the order they are searched: the centre,
 * north, south, east, west, north-east, north-west, south-east,
 * south-west. */
#define GEO_BOX_CENTER 0
#define GEO_BOX_NORTH 1
#define GEO_BOX_SOUTH 2
#define GEO_BOX_EAST 3
#define GEO_BOX_WEST 4
#define GEO_BOX_NORTH_EAST 5
#define GEO_BOX_NORTH_WEST 6
#define GEO_BOX_SOUTH_EAST 7
#define GEO_BOX_SOUTH_WEST 8
#define GEO_BOXES 9

/* What a search looks for: a circle of radius, or a box of width by
 * height, around xy (longitude, latitude), lengths in the unit whose
 * size in metres is conversion. bounds is filled by the search: the
 * longitude and latitude limits of the shape (min lon, min lat, max lon,
 * max lat). */
typedef struct geoShape {
    int type;                   /* GEO_SHAPE_* */
    double xy[2];
    double conversion;          /* metres per unit */
    double radius;              /* a circle's */
    double width, height;       /* a box's */
    double bounds[4];
} geoShape;

int geohashEncode(const geoHashRange *lon_range,
                  const geoHashRange *lat_range, double lon, double lat,
                  uint8_t step, geoHashBits *hash);
int geohashEncodeWGS84(double lon, double lat, uint8_t step,
                       geoHashBits *hash);
int geohashDecodeWGS84(geoHashBits hash, geoHashArea *area);
int geohashDecodeToLonLat(geoHashBits hash, double *xy);
int geohashDecodeScore(double score, double *xy);
uint64_t geohashAlign52Bits(geoHashBits hash);
void geohashSearchBoxes(geoShape *shape, geoHashBits boxes[GEO_BOXES]);
double geohashDistance(double lon1, double lat1, double lon2, double lat2);
int geohashInShape(const geoShape *shape, double lon, double lat,
                   double *distance);

#endif
