// Entry script of a mode page: the modules it imports do nothing on import.
import {bindLessonNavigation} from "../lesson-nav.js";
import {start} from "../modes/step-by-step.js";
import {addShareButtons} from "../share-button.js";
import {addReportLinks} from "../report-problem.js";
import {startExercises} from "../widgets/code-exercise.js";

bindLessonNavigation();
start();
startExercises();
addShareButtons();
addReportLinks();
