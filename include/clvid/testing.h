/* testing.h - fault injection for clvid's own tests and its CLVID_FAULT
 * switch: exported by libclvid, but not installed and not part of the
 * API or the ABI (they may change in any release). */
#ifndef CLVID_TESTING_H
#define CLVID_TESTING_H

#include "clvid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device `device` of the stage fails (as on a lost device) when it is asked
 * for the frame after its `frames`-th. */
CLV_API void clv_stage_inject_fault(clv_stage *stage, int device, uint64_t frames);
/* The next frame submitted to device `device` fails there (as an OpenCL
 * error at submit would: on the device's sending thread, found by the
 * stage's next call that waits for that device, or clv_stage_settle). */
CLV_API void clv_stage_inject_submit_fault(clv_stage *stage, int device);
/* Waits for the frames being sent on the devices' own threads (a stage of
 * several devices sends on a thread a device) and fails any device whose
 * send failed, as the stage's next call would. */
CLV_API void clv_stage_settle(clv_stage *stage);
/* With hold set, device `device`'s sending thread takes no frame: those
 * given to it wait in its queue until hold is cleared (a stage of several
 * devices). While held, call only clv_stage_input, clv_stage_submit and
 * this: the stage's other calls wait for the device's frames. */
CLV_API void clv_stage_hold_sends(clv_stage *stage, int device, int hold);

#ifdef __cplusplus
}
#endif

#endif
